package dev.sluice.routing.sql;

import dev.sluice.routing.sql.DigestText.Last;

/**
 * The digest of a statement (BEHAVIOUR §12): its text as the classifier's lexer reads it, with
 * every literal replaced by {@code ?}, a list of literals after {@code IN} folded to
 * {@code IN (...)}, the rows of a multi-row {@code VALUES} after the first folded to {@code , ...},
 * comments and whitespace dropped (one space between tokens, none inside parentheses or before a
 * comma), a trailing {@code ;} dropped, and the routing hints before the statement kept apart, in
 * {@link #hints()}. Words, names and variables are kept as written, case included.
 *
 * <p>So {@code SELECT * FROM t WHERE id IN (1, 2, 3)} and
 * {@code select * from t where id in (7) -- again} do not share a digest (case differs), but
 * {@code SELECT * FROM t WHERE id IN (1,2,3)} and {@code SELECT  *  FROM t WHERE id IN ('a')} do:
 * {@code SELECT * FROM t WHERE id IN (...)}.
 *
 * <p>The text is at most {@value #MAX_TEXT_BYTES} bytes, like the server's own
 * {@code performance_schema_max_digest_length}: a longer one is cut and ends with {@code ...}, and
 * statements that agree up to the cut share a digest.
 *
 * <p>One instance serves every statement of its thread: {@link #digest} reuses its buffer and its
 * lexer and allocates nothing, so a store can find a digest it has seen by {@link #hash()} and
 * confirm it with {@link #textEquals} without building a String; {@link #text()} makes one for a
 * digest seen for the first time.
 */
public final class StatementDigest implements Digest {

    /** The longest digest text kept, in bytes. */
    public static final int MAX_TEXT_BYTES = 1024;
    /** Bits of {@link #hints()}. */
    public static final int FORCE_MASTER = 1;
    public static final int FORCE_SLAVE = 2;
    public static final int CONSISTENT_WITH = 4;

    private static final byte[] ELLIPSIS = DigestText.ELLIPSIS;
    private static final long NULL_WORD = WordHash.of("null");

    /** Where a {@code VALUES} clause stands. */
    private enum Rows { NONE, EXPECT_ROW, IN_ROW, AFTER_ROW, SKIP_ROW }

    private final Lexer lexer = new Lexer();
    private final HintReader hintReader = new HintReader(false);
    private final DigestText out = new DigestText();
    private long hash;
    private int hints;
    private ClientCharset charset = ClientCharset.UTF8MB4;

    private Rows rows;
    private int rowDepth;
    private boolean rowsFolded;
    /** Output position just after the {@code (} of an {@code IN} list being read; -1 when none. */
    private int listBody;
    private int listDepth;
    private boolean listOfLiterals;

    /**
     * Digests {@code sql[offset, offset + length)}, a COM_QUERY or COM_STMT_PREPARE text written in
     * {@code textCharset}; the result stays readable here until the next call.
     */
    public StatementDigest digest(byte[] sql, int offset, int length, ClientCharset textCharset) {
        int to = offset + length;
        this.charset = textCharset;
        out.reset();
        hints = 0;
        rows = Rows.NONE;
        listBody = -1;
        int from = offset;
        if (HintReader.startsWithComment(sql, offset, to)) {
            hintReader.hint = Hint.NONE;
            hintReader.consistentWith = false;
            from = hintReader.read(sql, offset, to);
            hints = (hintReader.hint == Hint.FORCE_MASTER ? FORCE_MASTER : 0)
                    | (hintReader.hint == Hint.FORCE_SLAVE ? FORCE_SLAVE : 0)
                    | (hintReader.consistentWith ? CONSISTENT_WITH : 0);
        }
        lexer.reset(sql, from, to, textCharset);
        try {
            for (lexer.advance(); lexer.type != TokenType.END; lexer.advance()) {
                token(sql);
            }
        } finally {
            lexer.release();
        }
        hash = out.finish(hints);
        return this;
    }

    /** Convenience for tests and tools: digests a Java string (encoded as UTF-8). */
    public StatementDigest digest(String sql) {
        byte[] bytes = sql.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return digest(bytes, 0, bytes.length, ClientCharset.UTF8MB4);
    }

    /** A 64-bit hash of the text and the hints: equal digests have equal hashes. */
    @Override
    public long hash() {
        return hash;
    }

    /** Length of the digest text in bytes. */
    public int length() {
        return out.length();
    }

    /** {@link #FORCE_MASTER}, {@link #FORCE_SLAVE}, {@link #CONSISTENT_WITH} bits. */
    @Override
    public int hints() {
        return hints;
    }

    /** Whether the digest text is exactly {@code other}'s bytes; allocates nothing. */
    @Override
    public boolean textEquals(byte[] other) {
        return out.equalsBytes(other);
    }

    /** A copy of the digest text's bytes, to keep. */
    @Override
    public byte[] textBytes() {
        return out.copy();
    }

    /** The digest text, read in the statement's character set. */
    @Override
    public String text() {
        return out.decode(charset);
    }

    /** The hints as words ({@code FORCE_MASTER CONSISTENT_WITH}); empty when there were none. */
    public static String hintText(int hints) {
        StringBuilder b = new StringBuilder();
        if ((hints & FORCE_MASTER) != 0) {
            b.append("FORCE_MASTER");
        }
        if ((hints & FORCE_SLAVE) != 0) {
            b.append(b.isEmpty() ? "" : " ").append("FORCE_SLAVE");
        }
        if ((hints & CONSISTENT_WITH) != 0) {
            b.append(b.isEmpty() ? "" : " ").append("CONSISTENT_WITH");
        }
        return b.toString();
    }

    private void token(byte[] sql) {
        TokenType type = lexer.type;
        boolean open = type == TokenType.PUNCT && lexer.punct == '(';
        boolean close = type == TokenType.PUNCT && lexer.punct == ')';
        if (!rowsAllow(open, close)) {
            return;
        }
        if (listBody >= 0) {
            followList(type, open, close);
            if (close && listDepth == 0) {
                closeList();
                return;
            }
        }
        switch (type) {
            case NUMBER -> {
                value();
                skipExponentSign();
            }
            case STRING -> value();
            case WORD -> word(sql);
            case QUOTED_NAME, USER_VARIABLE, SYSTEM_VARIABLE ->
                    out.write(Last.VALUE, sql, lexer.rawStart, lexer.rawEnd);
            case ASSIGN -> out.write(Last.OPERATOR, sql, lexer.rawStart, lexer.rawEnd);
            case PUNCT -> punct(sql, open);
            case END -> { }
        }
    }

    /** Folds the rows of a multi-row VALUES after the first; returns false for a token dropped. */
    private boolean rowsAllow(boolean open, boolean close) {
        switch (rows) {
            case EXPECT_ROW -> {
                rows = open ? Rows.IN_ROW : Rows.NONE;
                rowDepth = 0;
            }
            case AFTER_ROW -> {
                if (lexer.isPunct(',') && lexer.peekPunct('(')) {
                    if (!rowsFolded) {
                        out.write(Last.COMMA, ',');
                        out.write(Last.ELLIPSIS, ELLIPSIS);
                        rowsFolded = true;
                    }
                    rows = Rows.SKIP_ROW;
                    rowDepth = 0;
                    return false;
                }
                rows = Rows.NONE;
            }
            case SKIP_ROW -> {
                rowDepth += open ? 1 : close ? -1 : 0;
                if (rowDepth == 0) {
                    rows = Rows.AFTER_ROW;
                }
                return false;
            }
            default -> { }
        }
        if (rows == Rows.IN_ROW) {
            rowDepth += open ? 1 : close ? -1 : 0;
            if (rowDepth == 0) {
                rows = Rows.AFTER_ROW;
            }
        }
        return true;
    }

    /** Keeps track of an IN list: still literals only, and how deep. */
    private void followList(TokenType type, boolean open, boolean close) {
        if (open) {
            listDepth++;
        } else if (close) {
            listDepth--;
        } else if (!(type == TokenType.NUMBER || type == TokenType.STRING
                || (type == TokenType.PUNCT && (lexer.punct == ',' || lexer.punct == '?' || isSign()))
                || (type == TokenType.WORD && (isNull() || isIntroducer())))) {
            listOfLiterals = false;
        }
    }

    private void closeList() {
        if (listOfLiterals) {
            out.rewind(listBody);
            out.write(Last.ELLIPSIS, ELLIPSIS);
        }
        listBody = -1;
        out.write(Last.CLOSE, ')');
    }

    private void value() {
        out.write(Last.VALUE, '?');
    }

    /** {@code 1e-5} is one number, though the lexer stops at the sign. */
    private void skipExponentSign() {
        int lastByte = lexer.bytes()[lexer.rawEnd - 1];
        if ((lastByte == 'e' || lastByte == 'E') && lexer.peekRawStart() == lexer.rawEnd
                && (lexer.peekPunct('-') || lexer.peekPunct('+'))) {
            lexer.advance();
            if (lexer.peekType() == TokenType.NUMBER && lexer.peekRawStart() == lexer.rawEnd) {
                lexer.advance();
            }
        }
    }

    private void word(byte[] sql) {
        if (isIntroducer()) {
            return;
        }
        out.writeWord(sql, lexer.rawStart, lexer.rawEnd, lexer.keyword);
        if (lexer.keyword == Keyword.VALUES || lexer.keyword == Keyword.VALUE) {
            rows = Rows.EXPECT_ROW;
            rowsFolded = false;
        }
    }

    private void punct(byte[] sql, boolean open) {
        int c = lexer.punct;
        if (c == '?') {
            value();
        } else if (open) {
            boolean startsList = out.lastWordIs(Keyword.IN);
            out.write(Last.OPEN, '(');
            if (startsList) {
                listBody = out.position();
                listDepth = 1;
                listOfLiterals = true;
            }
        } else if (c == ')') {
            out.write(Last.CLOSE, ')');
        } else if (c == ',') {
            out.write(Last.COMMA, ',');
        } else if (c == '.') {
            out.write(Last.DOT, '.');
        } else if (c == ';') {
            if (lexer.peekType() != TokenType.END) {
                out.write(Last.SEMICOLON, ';');
            }
        } else if (!isSign()) {
            if (out.last() == Last.OPERATOR && !lexer.spaceBefore) {
                out.extendOperator(c);
            } else {
                out.write(Last.OPERATOR, sql, lexer.rawStart, lexer.rawEnd);
            }
        }
    }

    /** A {@code -} or {@code +} before a number, where no value precedes it: part of the literal. */
    private boolean isSign() {
        if (!(lexer.isPunct('-') || lexer.isPunct('+')) || lexer.peekType() != TokenType.NUMBER) {
            return false;
        }
        return switch (out.last()) {
            case NOTHING, OPEN, COMMA, OPERATOR, SEMICOLON -> true;
            case WORD -> out.lastWordIsClause();
            default -> false;
        };
    }

    private boolean isNull() {
        return lexer.end - lexer.start == 4 && lexer.hash == NULL_WORD;
    }

    /** {@code X'…'}, {@code B'…'}, {@code N'…'} and {@code _charset'…'}: the word belongs to the literal. */
    private boolean isIntroducer() {
        if (lexer.type != TokenType.WORD || lexer.peekType() != TokenType.STRING) {
            return false;
        }
        byte[] b = lexer.bytes();
        if (b[lexer.start] == '_') {
            return true;
        }
        int c = b[lexer.start] | 0x20;
        return lexer.end - lexer.start == 1 && (c == 'x' || c == 'b' || c == 'n')
                && lexer.peekRawStart() == lexer.rawEnd;
    }
}
