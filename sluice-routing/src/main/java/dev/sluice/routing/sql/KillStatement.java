package dev.sluice.routing.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * A {@code KILL [HARD | SOFT] [CONNECTION | QUERY] target} statement of a text, alone or among
 * several: where it is ({@code [start, end)}, so that it can be replaced), whether it ends only
 * the running statement, and its target — a connection id written as a number, or not.
 *
 * @param start where the statement's KILL word starts
 * @param end where its last token ends
 * @param queryOnly {@code KILL QUERY}
 * @param target what it names
 */
public record KillStatement(int start, int end, boolean queryOnly, Target target) {

    /** What a KILL names. */
    public sealed interface Target {
        /** A connection id written as a number: the one form Sluice resolves to its sessions. */
        record ConnectionId(long id) implements Target {
        }

        /** {@code KILL USER name}: about accounts, not ids, so the server's own business. */
        record User() implements Target {
        }

        /** An expression, a query id ({@code KILL QUERY ID n}) or a malformed target. */
        record Other() implements Target {
        }
    }

    public OptionalLong connectionId() {
        return target instanceof Target.ConnectionId c ? OptionalLong.of(c.id()) : OptionalLong.empty();
    }

    /** Every KILL statement of {@code text[from, to)}, in order; statements are split at top-level semicolons. */
    public static List<KillStatement> find(byte[] text, int from, int to, ClientCharset charset) {
        List<KillStatement> found = new ArrayList<>(1);
        Lexer lx = new Lexer();
        lx.reset(text, from, to, charset);
        lx.advance();
        int depth = 0;
        boolean statementStart = true;
        while (lx.type != TokenType.END) {
            if (statementStart && lx.type == TokenType.WORD && lx.keyword == Keyword.KILL) {
                found.add(read(lx));
                if (lx.type == TokenType.END) {
                    break;
                }
            }
            statementStart = false;
            if (lx.isPunct('(')) {
                depth++;
            } else if (lx.isPunct(')')) {
                depth = Math.max(0, depth - 1);
            } else if (lx.isPunct(';') && depth == 0) {
                statementStart = true;
            }
            lx.advance();
        }
        return found;
    }

    /** For tests and String callers. */
    public static List<KillStatement> find(String sql) {
        byte[] bytes = ClientCharset.UTF8MB4.encode(sql);
        return find(bytes, 0, bytes.length, ClientCharset.UTF8MB4);
    }

    /** Reads one KILL statement from its KILL word; leaves the lexer on the token after it. */
    private static KillStatement read(Lexer lx) {
        int start = lx.start;
        int end = lx.end;
        lx.advance();
        if (isWord(lx, "HARD") || isWord(lx, "SOFT")) {
            end = lx.end;
            lx.advance();
        }
        boolean queryOnly = false;
        if (isWord(lx, "CONNECTION")) {
            end = lx.end;
            lx.advance();
        } else if (isWord(lx, "QUERY")) {
            queryOnly = true;
            end = lx.end;
            lx.advance();
        }
        Target target;
        if (isWord(lx, "USER")) {
            target = new Target.User();
        } else if (lx.type == TokenType.NUMBER && endsStatement(lx.peekType(), lx) && digitsOnly(lx)) {
            target = parse(lx).<Target>map(Target.ConnectionId::new).orElseGet(Target.Other::new);
        } else {
            target = new Target.Other();
        }
        while (lx.type != TokenType.END && !lx.isPunct(';')) {
            end = lx.end;
            lx.advance();
        }
        return new KillStatement(start, end, queryOnly, target);
    }

    private static boolean endsStatement(TokenType next, Lexer lx) {
        return next == TokenType.END || lx.peekPunct(';');
    }

    private static boolean digitsOnly(Lexer lx) {
        byte[] b = lx.bytes();
        for (int i = lx.start; i < lx.end; i++) {
            if (!Lexer.isDigit(b[i])) {
                return false;
            }
        }
        return true;
    }

    private static java.util.Optional<Long> parse(Lexer lx) {
        try {
            return java.util.Optional.of(Long.parseLong(lx.charset.decode(lx.bytes(), lx.start, lx.end)));
        } catch (NumberFormatException tooLong) {
            return java.util.Optional.empty();
        }
    }

    private static boolean isWord(Lexer lx, String word) {
        return lx.type == TokenType.WORD && lx.end - lx.start == word.length()
                && NameReader.text(lx).toUpperCase(Locale.ROOT).equals(word);
    }
}
