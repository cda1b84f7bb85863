package dev.sluice.routing.sql;

import dev.sluice.routing.gtid.GtidPosition;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Reads the routing hints in the comments before a statement's first token (BEHAVIOUR §3, §5):
 * <code>/&#42;FORCE_MASTER&#42;/</code>, <code>/&#42;FORCE_SLAVE&#42;/</code> and
 * <code>/&#42;CONSISTENT_WITH=&lt;gtid&gt;&#42;/</code>, in any order, after optional whitespace and
 * other comments, case-insensitive, blanks inside the comment allowed. A hint later in the text
 * is an ordinary comment. When both routing hints are given, FORCE_MASTER wins: it is the safe one.
 */
final class HintReader {

    /** A consistency token longer than this is not a GTID position a client would send. */
    static final int MAX_TOKEN_CHARS = 16 * 1024;

    private static final byte[] FORCE_MASTER = "force_master".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FORCE_SLAVE = "force_slave".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONSISTENT_WITH = "consistent_with".getBytes(StandardCharsets.US_ASCII);

    Hint hint = Hint.NONE;
    Optional<GtidPosition> token = Optional.empty();
    /** A CONSISTENT_WITH hint was written, whatever its position (parsed only when {@link #parseToken}). */
    boolean consistentWith;
    /**
     * Whether to parse the position of CONSISTENT_WITH: the digest needs only to know it was there,
     * and allocates nothing.
     */
    private final boolean parseToken;

    HintReader() {
        this(true);
    }

    HintReader(boolean parseToken) {
        this.parseToken = parseToken;
    }

    /** Whether the text starts with a comment (after blanks): only then can it carry hints. */
    static boolean startsWithComment(byte[] buf, int from, int to) {
        for (int i = from; i < to; i++) {
            int b = buf[i];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return b == '/' || b == '#' || b == '-';
            }
        }
        return false;
    }

    /** Reads hints from {@code buf[from, to)}; returns where the statement proper starts. */
    int read(byte[] buf, int from, int to) {
        int pos = from;
        while (pos < to) {
            int b = buf[pos];
            if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == 0x0B) {
                pos++;
            } else if (b == '/' && pos + 1 < to && buf[pos + 1] == '*') {
                int body = pos + 2;
                if (body < to && (buf[body] == '!' || ((buf[body] == 'M' || buf[body] == 'm')
                        && body + 1 < to && buf[body + 1] == '!'))) {
                    return pos;
                }
                int close = findClose(buf, body, to);
                if (close < 0) {
                    return pos;
                }
                readHint(buf, body, close);
                pos = close + 2;
            } else if (b == '#' || (b == '-' && pos + 2 < to && buf[pos + 1] == '-' && (buf[pos + 2] & 0xFF) <= ' ')) {
                while (pos < to && buf[pos] != '\n') {
                    pos++;
                }
            } else {
                return pos;
            }
        }
        return pos;
    }

    private static int findClose(byte[] buf, int from, int to) {
        for (int i = from; i + 1 < to; i++) {
            if (buf[i] == '*' && buf[i + 1] == '/') {
                return i;
            }
        }
        return -1;
    }

    private void readHint(byte[] buf, int from, int to) {
        int start = skipBlanks(buf, from, to);
        int end = to;
        while (end > start && isBlank(buf[end - 1])) {
            end--;
        }
        if (WordHash.equalsFolded(buf, start, end, FORCE_MASTER)) {
            hint = Hint.FORCE_MASTER;
        } else if (WordHash.equalsFolded(buf, start, end, FORCE_SLAVE)) {
            if (hint != Hint.FORCE_MASTER) {
                hint = Hint.FORCE_SLAVE;
            }
        } else if (end - start > CONSISTENT_WITH.length
                && WordHash.equalsFolded(buf, start, start + CONSISTENT_WITH.length, CONSISTENT_WITH)) {
            int eq = skipBlanks(buf, start + CONSISTENT_WITH.length, end);
            if (eq < end && buf[eq] == '=') {
                consistentWith = true;
            }
            if (parseToken && eq < end && buf[eq] == '=' && end - eq - 1 <= MAX_TOKEN_CHARS) {
                String text = new String(buf, eq + 1, end - eq - 1, StandardCharsets.ISO_8859_1);
                token = GtidPosition.parse(text).filter(position -> !position.isEmpty());
            }
        }
    }

    private static int skipBlanks(byte[] buf, int from, int to) {
        while (from < to && isBlank(buf[from])) {
            from++;
        }
        return from;
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }
}
