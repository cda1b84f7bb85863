package dev.sluice.routing.sql;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The statement classifier: what a COM_QUERY text is, as far as routing is concerned (BEHAVIOUR §3).
 *
 * <p>It reads the payload bytes in place (no copy, no String for keywords), in one pass, so its
 * cost is linear in the text whatever the bytes are, and it never throws: text it cannot make
 * sense of is {@link StatementKind#UNKNOWN} or {@link StatementProperty#MALFORMED}, both of which
 * the router sends to the primary. It knows no session: whether a read is in a transaction or
 * touches a temporary table of this session is the router's question.
 */
public final class SqlClassifier {

    private static final Statement UNCLASSIFIABLE = new Statement(StatementKind.UNKNOWN, Hint.NONE, Optional.empty(),
            1 << StatementProperty.MALFORMED.ordinal(), 0, TransactionControl.NONE, 0, AutocommitChange.NONE,
            Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of(), 0);

    /** One scanner per thread (an event loop classifies one statement at a time): no allocation but the result. */
    private static final ThreadLocal<StatementScanner> SCANNERS = ThreadLocal.withInitial(StatementScanner::new);

    private SqlClassifier() {
    }

    /**
     * Classifies {@code utf8[offset, offset + length)}, the payload of a COM_QUERY (or the text of
     * a COM_STMT_PREPARE) without the command byte.
     */
    public static Statement classify(byte[] utf8, int offset, int length) {
        return classify(utf8, offset, length, ClientCharset.UTF8MB4);
    }

    /**
     * Classifies {@code text[offset, offset + length)} written in {@code charset} (the connection's
     * {@code character_set_client}): names it keeps (schemas, temporary tables, the text of
     * session commands) are read in that character set, as the server reads them.
     */
    public static Statement classify(byte[] text, int offset, int length, ClientCharset charset) {
        if (offset < 0 || length < 0 || offset > text.length - length) {
            return UNCLASSIFIABLE;
        }
        try {
            return SCANNERS.get().scan(text, offset, offset + length, charset);
        } catch (RuntimeException bug) {
            // Never let a classifier bug reach the event loop: an unclassifiable statement is
            // routed to the primary, which is always correct, if slower.
            return UNCLASSIFIABLE;
        }
    }

    /** Classification with a scanner of its own, for tests that compare it with the reused one. */
    static Statement classifyWithNewScanner(byte[] utf8, int offset, int length) {
        return new StatementScanner().scan(utf8, offset, offset + length);
    }

    /** Convenience for tests and tools: classifies a Java string (encoded as UTF-8). */
    public static Statement classify(String sql) {
        byte[] bytes = sql.getBytes(StandardCharsets.UTF_8);
        return classify(bytes, 0, bytes.length);
    }
}
