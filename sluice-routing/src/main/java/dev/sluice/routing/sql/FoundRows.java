package dev.sluice.routing.sql;

/**
 * What {@code FOUND_ROWS()} answers after a statement without SQL_CALC_FOUND_ROWS, told from the
 * statement's text and the rows it sent, for a transaction pool that answers it itself once the
 * connection that ran the statement serves someone else (BEHAVIOUR §7).
 *
 * <p>MariaDB counts the rows the outermost SELECT produced until its LIMIT stopped it: the rows the
 * offset skipped and the rows sent. So after a SELECT with a literal offset that sent rows, the
 * answer is the offset plus the rows sent; without an offset it is the rows sent. Everything else
 * is the server's alone: a SELECT whose offset skipped every row it had (the count lies anywhere
 * between none and the offset), a UNION, INTERSECT or EXCEPT (the server counts the whole result),
 * a top-level VALUES, OFFSET … FETCH (WITH TIES sends more than the count), LIMIT ROWS EXAMINED, a
 * LIMIT that is not a literal, PROCEDURE, a parenthesised query, and every statement that is not a
 * SELECT (after SHOW CREATE TABLE, EXPLAIN or CHECK TABLE the server still answers for the SELECT
 * before them).
 */
public final class FoundRows {

    /** The count cannot be told without the server. */
    public static final long UNKNOWN = -1;

    private static final long OFFSET = WordHash.of("offset");
    private static final long FETCH = WordHash.of("fetch");
    private static final long EXAMINED = WordHash.of("examined");
    /** Longer numbers are no row counts worth parsing. */
    private static final int MAX_DIGITS = 18;
    private static final int RADIX = 10;

    private static final ThreadLocal<Lexer> LEXERS = ThreadLocal.withInitial(Lexer::new);

    private FoundRows() {
    }

    /**
     * The offset of the outermost LIMIT of {@code text[offset, offset + length)} (0 without one) when
     * the statement's FOUND_ROWS() follows from the rows it sends, else {@link #UNKNOWN}.
     */
    public static long offsetOf(byte[] text, int offset, int length, ClientCharset charset) {
        if (offset < 0 || length < 0 || offset > text.length - length) {
            return UNKNOWN;
        }
        Lexer lx = LEXERS.get();
        try {
            lx.reset(text, offset, offset + length, charset);
            lx.advance();
            long found = offsetOf(lx);
            return lx.malformed ? UNKNOWN : found;
        } catch (RuntimeException bug) {
            // Not knowing only costs the client its connection for one more statement.
            return UNKNOWN;
        } finally {
            lx.release();
        }
    }

    /** Convenience for tests: {@link #offsetOf(byte[], int, int, ClientCharset)} of a Java string. */
    public static long offsetOf(String sql) {
        byte[] bytes = sql.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return offsetOf(bytes, 0, bytes.length, ClientCharset.UTF8MB4);
    }

    /**
     * FOUND_ROWS() after a statement whose {@link #offsetOf offset} is {@code offset} sent
     * {@code rowsSent} rows, or {@link #UNKNOWN}.
     */
    public static long after(long offset, long rowsSent) {
        if (offset == UNKNOWN || rowsSent < 0) {
            return UNKNOWN;
        }
        if (offset == 0) {
            return rowsSent;
        }
        return rowsSent > 0 ? offset + rowsSent : UNKNOWN;
    }

    private static long offsetOf(Lexer lx) {
        if (lx.type != TokenType.WORD || (lx.keyword != Keyword.SELECT && lx.keyword != Keyword.WITH)) {
            return UNKNOWN;
        }
        int depth = 0;
        long limitOffset = 0;
        boolean limited = false;
        for (; lx.type != TokenType.END; lx.advance()) {
            if (lx.isPunct('(')) {
                depth++;
            } else if (lx.isPunct(')')) {
                depth--;
            } else if (lx.isPunct(';')) {
                if (depth == 0 && lx.peekType() != TokenType.END) {
                    return UNKNOWN;
                }
            } else if (lx.type == TokenType.WORD) {
                if (lx.keyword == Keyword.UNION || lx.keyword == Keyword.EXCEPT || lx.keyword == Keyword.INTERSECT) {
                    return UNKNOWN;
                }
                if (depth > 0) {
                    continue;
                }
                if (lx.keyword == Keyword.VALUES || lx.keyword == Keyword.PROCEDURE
                        || lx.hash == OFFSET || lx.hash == FETCH || lx.hash == EXAMINED) {
                    return UNKNOWN;
                }
                if (lx.keyword == Keyword.LIMIT) {
                    if (limited) {
                        return UNKNOWN;
                    }
                    limited = true;
                    limitOffset = limitOffset(lx);
                    if (limitOffset == UNKNOWN) {
                        return UNKNOWN;
                    }
                }
            }
        }
        return depth == 0 ? limitOffset : UNKNOWN;
    }

    /**
     * Reads {@code LIMIT count}, {@code LIMIT offset, count} or {@code LIMIT count OFFSET offset}
     * from the LIMIT the lexer is on, leaving it on the clause's last number.
     */
    private static long limitOffset(Lexer lx) {
        lx.advance();
        long first = number(lx);
        if (first == UNKNOWN) {
            return UNKNOWN;
        }
        if (lx.peekPunct(',')) {
            lx.advance();
            lx.advance();
            return number(lx) == UNKNOWN ? UNKNOWN : first;
        }
        if (lx.peekType() == TokenType.WORD && lx.peekKeyword() == Keyword.NONE) {
            lx.advance();
            if (lx.hash != OFFSET) {
                return UNKNOWN;
            }
            lx.advance();
            return number(lx);
        }
        return 0;
    }

    /** The current token as a plain decimal integer, or {@link #UNKNOWN} (a placeholder, a variable …). */
    private static long number(Lexer lx) {
        if (lx.type != TokenType.NUMBER || lx.end - lx.start > MAX_DIGITS || lx.end == lx.start) {
            return UNKNOWN;
        }
        byte[] b = lx.bytes();
        long value = 0;
        for (int i = lx.start; i < lx.end; i++) {
            if (b[i] < '0' || b[i] > '9') {
                return UNKNOWN;
            }
            value = value * RADIX + (b[i] - '0');
        }
        return value;
    }
}
