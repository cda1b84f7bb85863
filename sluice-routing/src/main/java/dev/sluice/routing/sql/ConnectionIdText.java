package dev.sluice.routing.sql;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * Puts the client's own connection id in place of every {@code CONNECTION_ID()} call of a
 * statement text, so that the function answers the id of the client's handshake on whichever
 * server runs it, instead of that server's thread id.
 *
 * <p>The literal is written so that the server describes the column exactly as it describes
 * {@code CONNECTION_ID()}: {@code CAST(0000000042 AS UNSIGNED)} is an unsigned, non-null LONG of
 * display length 10, like the function. A select-list item that holds a call and has no alias is
 * given one, the name the server makes from the item's text (its comments left out, at most
 * {@value #MAX_COLUMN_NAME} characters), so the column keeps its name. Strings, quoted names and
 * comments are left alone, and so is everything from the first CREATE or ALTER statement on: a
 * view, routine, trigger or event runs later, for whichever connection calls it.
 */
public final class ConnectionIdText {

    /** Digits of the literal: the function's display length, which a zero-padded literal carries. */
    private static final int ID_DIGITS = 10;
    /** The longest column name the server makes from a select item's text (longer ones are cut). */
    static final int MAX_COLUMN_NAME = 255;

    private final byte[] text;
    private final int to;
    private final ClientCharset charset;
    private final byte[] literal;
    private final Lexer lx = new Lexer();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final Deque<SelectItem> selects = new ArrayDeque<>();
    private int copied;
    private int depth;
    private boolean rewritten;

    private ConnectionIdText(byte[] text, int from, int to, ClientCharset charset, long connectionId) {
        this.text = text;
        this.to = to;
        this.charset = charset;
        this.literal = literal(connectionId);
        this.copied = from;
        lx.reset(text, from, to, charset);
    }

    /**
     * {@code text[from, to)} with every {@code CONNECTION_ID()} call replaced by {@code connectionId};
     * empty when there is none to replace.
     */
    public static Optional<byte[]> rewrite(byte[] text, int from, int to, ClientCharset charset, long connectionId) {
        return new ConnectionIdText(text, from, to, charset, connectionId).run();
    }

    /** Convenience for tests and callers holding a String: the text rewritten, or as it was. */
    public static String rewrite(String sql, long connectionId) {
        byte[] bytes = ClientCharset.UTF8MB4.encode(sql);
        return rewrite(bytes, 0, bytes.length, ClientCharset.UTF8MB4, connectionId)
                .map(b -> ClientCharset.UTF8MB4.decode(b, 0, b.length)).orElse(sql);
    }

    static byte[] literal(long connectionId) {
        return ClientCharset.UTF8MB4.encode("CAST(" + String.format("%0" + ID_DIGITS + "d", connectionId)
                + " AS UNSIGNED)");
    }

    private Optional<byte[]> run() {
        boolean statementStart = true;
        lx.advance();
        while (lx.type != TokenType.END) {
            if (statementStart && (lx.keyword == Keyword.CREATE || lx.keyword == Keyword.ALTER)) {
                break;
            }
            statementStart = false;
            if (lx.type == TokenType.PUNCT
                    && (lx.punct == '(' || lx.punct == ')' || lx.punct == ',' || lx.punct == ';')) {
                statementStart = punctuation(lx.punct);
            } else if (lx.type == TokenType.WORD && lx.keyword == Keyword.SELECT) {
                selects.push(new SelectItem(depth, lx.end));
            } else if (endsSelectList()) {
                endItem();
                selects.pop();
            } else if (isCall()) {
                replaceCall();
            } else {
                noteToken();
            }
            lx.advance();
        }
        while (!selects.isEmpty()) {
            endItem();
            selects.pop();
        }
        if (!rewritten || lx.malformed) {
            // a text the server will refuse anyway is not worth changing
            return Optional.empty();
        }
        out.write(text, copied, to - copied);
        return Optional.of(out.toByteArray());
    }

    /** Returns whether a new statement starts after this punctuation. */
    private boolean punctuation(int c) {
        switch (c) {
            case '(' -> {
                noteToken();
                depth++;
            }
            case ')' -> {
                depth = Math.max(0, depth - 1);
                while (!selects.isEmpty() && selects.peek().listDepth() > depth) {
                    endItem();
                    selects.pop();
                }
                noteToken();
            }
            case ',' -> {
                SelectItem item = selects.peek();
                if (item != null && item.listDepth() == depth) {
                    endItem();
                    item.restartAfter(lx.end);
                } else {
                    noteToken();
                }
            }
            default -> {
                if (depth == 0) {
                    while (!selects.isEmpty()) {
                        endItem();
                        selects.pop();
                    }
                    return true;
                }
                noteToken();
            }
        }
        return false;
    }

    /** A clause keyword at the level of the innermost select list ends that list. */
    private boolean endsSelectList() {
        SelectItem item = selects.peek();
        if (item == null || item.listDepth() != depth || lx.type != TokenType.WORD) {
            return false;
        }
        return switch (lx.keyword) {
            case FROM, INTO, WHERE, GROUP, HAVING, ORDER, LIMIT, UNION, EXCEPT, INTERSECT, WINDOW, FOR, LOCK,
                    PROCEDURE -> true;
            default -> false;
        };
    }

    /** {@code CONNECTION_ID ( )}, not qualified by a schema (that would be a stored function). */
    private boolean isCall() {
        if (lx.type != TokenType.WORD || lx.keyword != Keyword.CONNECTION_ID || !lx.peekPunct('(')) {
            return false;
        }
        SelectItem item = selects.peek();
        return item == null || !item.lastIs('.');
    }

    private void replaceCall() {
        int callStart = lx.start;
        noteToken();
        lx.advance();
        if (!lx.peekPunct(')')) {
            // CONNECTION_ID with arguments is the server's error to give: left as written
            noteToken();
            depth++;
            return;
        }
        lx.advance();
        out.write(text, copied, callStart - copied);
        out.writeBytes(literal);
        copied = lx.end;
        rewritten = true;
        // the call is part of the text of every select item around it, which names that column
        selects.forEach(SelectItem::holdCall);
        noteToken();
    }

    private void noteToken() {
        SelectItem item = selects.peek();
        if (item != null) {
            item.note(lx, depth);
        }
    }

    /** At the end of a select item: the item gets the name the server would have given it. */
    private void endItem() {
        SelectItem item = selects.peek();
        if (item == null || !item.holdsCall() || item.hasAlias(text, charset)) {
            return;
        }
        // A malformed text can end an item before the call just replaced in it (an unbalanced
        // parenthesis): its name then ends where the copy does, never before.
        int end = Math.max(copied, Math.min(item.lastEnd(), to));
        out.write(text, copied, end - copied);
        copied = end;
        String name = ColumnNameText.of(text, item.textStart(), end, charset);
        if (name.codePointCount(0, name.length()) > MAX_COLUMN_NAME) {
            name = name.substring(0, name.offsetByCodePoints(0, MAX_COLUMN_NAME));
        }
        out.writeBytes(charset.encode(" AS `" + name.replace("`", "``") + "`"));
    }
}
