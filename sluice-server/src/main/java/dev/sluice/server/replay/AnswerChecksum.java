package dev.sluice.server.replay;

import dev.sluice.protocol.ServerStatus;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The checksum of one answer to a COM_QUERY or a COM_STMT_EXECUTE, fed its bytes in order as they
 * reach the client, in pieces of any size. A replayed statement must answer with the same checksum as the
 * original (BEHAVIOUR §10), so it covers what the client may have acted on and leaves out what
 * legitimately differs on another server:
 * <ul>
 *   <li>OK packets count by their affected rows, last insert id and warning count; their status
 *       flags (a slow-query or no-index flag may differ) and their session state (the GTIDs a
 *       server reports) are left out;</li>
 *   <li>ERR packets count by their error code;</li>
 *   <li>result sets count by their column count, column definitions and row bytes, and the
 *       warning count of their terminator. Binary rows (an EXECUTE's) are read as text rows are:
 *       each starts with 0x00, which a row may, so only a 0xFE or 0xFF packet is told apart from
 *       them, and their bytes are hashed as they are.</li>
 * </ul>
 * It frames packets itself rather than asking {@code ResponseTracker}, whose callbacks do not say
 * where a packet sits among the bytes forwarded; the layouts followed are the tracker's (an EOF is
 * shorter than 9 bytes; under CLIENT_DEPRECATE_EOF a 0xFE packet shorter than 16 MB ends the rows).
 *
 * <pre>
 *   FIRST ─ OK / ERR ─────────────────────────────▶ DONE (or FIRST again: more results)
 *     └─ column count ─▶ COLUMNS ─▶ [COLUMNS_EOF] ─▶ ROWS ─ terminator / ERR ─▶ DONE (or FIRST)
 * </pre>
 *
 * <p>Not thread-safe; one per answer.
 */
public final class AnswerChecksum {
    private static final int HEADER_SIZE = 4;
    private static final int MAX_PAYLOAD = 0xFFFFFF;
    private static final int OK = 0x00;
    private static final int EOF = 0xFE;
    private static final int ERR = 0xFF;
    private static final int LOCAL_INFILE = 0xFB;
    /** An EOF packet is 5 bytes; a 0xFE-headed packet from 9 bytes on is a row. */
    private static final int EOF_MAX_LENGTH = 9;
    /** Whole packets are kept only to read their fields; anything bigger is data, hashed as it passes. */
    private static final int MAX_WHOLE = 1 << 16;
    private static final int LONG_BYTES = 8;

    private enum Part { FIRST, COLUMNS, COLUMNS_EOF, ROWS, DONE, UNREADABLE }

    private final boolean deprecateEof;
    private final MessageDigest digest;
    private Part part = Part.FIRST;
    private long columnsLeft;
    private final byte[] header = new byte[HEADER_SIZE];
    private int headerFill;
    /** Payload bytes of the current packet still to come; -1 between packets. */
    private long payloadLeft = -1;
    /** The current packet is read whole (its fields matter) rather than hashed as it passes. */
    private byte[] whole;
    private int wholeFill;
    /** The previous packet was 16 MB - 1 long: the current one continues it. */
    private boolean continued;
    private boolean localInfile;

    /** @param deprecateEof whether the connection negotiated CLIENT_DEPRECATE_EOF (no EOF after columns) */
    public AnswerChecksum(boolean deprecateEof) {
        this.deprecateEof = deprecateEof;
        try {
            this.digest = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    /** The next {@code length} bytes of the answer. */
    public void update(byte[] bytes, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end && part != Part.DONE && part != Part.UNREADABLE) {
            if (payloadLeft < 0) {
                int n = Math.min(HEADER_SIZE - headerFill, end - i);
                System.arraycopy(bytes, i, header, headerFill, n);
                headerFill += n;
                i += n;
                if (headerFill == HEADER_SIZE) {
                    headerFill = 0;
                    startPacket();
                }
                continue;
            }
            int n = (int) Math.min(payloadLeft, end - i);
            if (whole != null) {
                System.arraycopy(bytes, i, whole, wholeFill, n);
                wholeFill += n;
            } else {
                digest.update(bytes, i, n);
            }
            i += n;
            payloadLeft -= n;
            if (payloadLeft == 0) {
                endPacket();
            }
        }
        if (i < end) {
            // Bytes after the end: the answer is not what this reading expects.
            part = Part.UNREADABLE;
        }
    }

    /** Whether the bytes seen make one whole answer, as this reading understands it. */
    public boolean complete() {
        return part == Part.DONE;
    }

    /** The server asked for a LOCAL INFILE: the answer depends on the client's file. */
    public boolean localInfile() {
        return localInfile;
    }

    /** The checksum of the answer seen; meaningful once {@link #complete()}, and asked once (it ends the hashing). */
    public long value() {
        byte[] d = digest.digest();
        long v = 0;
        for (int k = 0; k < LONG_BYTES; k++) {
            v = (v << LONG_BYTES) | (d[k] & 0xFF);
        }
        return v;
    }

    private void startPacket() {
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        boolean continuation = continued;
        continued = length == MAX_PAYLOAD;
        payloadLeft = length;
        whole = null;
        if (continuation || !needsWhole(length)) {
            digest.update((byte) 'D');
            digestInt(length);
        } else {
            whole = new byte[length];
            wholeFill = 0;
        }
        if (length == 0) {
            endPacket();
        }
    }

    /**
     * Whether the packet is read whole before it counts; its first byte is not known yet. Rows short
     * enough are read whole too, since a terminator or an ERR among them is told by its first byte;
     * they are hashed as data exactly as a longer row passing through is.
     */
    private boolean needsWhole(int length) {
        return switch (part) {
            case FIRST, COLUMNS_EOF, ROWS -> length <= MAX_WHOLE;
            default -> false;
        };
    }

    private void endPacket() {
        payloadLeft = -1;
        byte[] p = whole;
        whole = null;
        if (continued) {
            // Part of a packet of 16 MB or more, continued by the next one (only data is that long,
            // hashed as it passed): the logical packet ends with the last part.
            return;
        }
        switch (part) {
            case FIRST -> first(p);
            case COLUMNS -> {
                if (--columnsLeft == 0) {
                    part = deprecateEof ? Part.ROWS : Part.COLUMNS_EOF;
                }
            }
            case COLUMNS_EOF -> {
                if (p == null || p.length == 0 || (p[0] & 0xFF) != EOF) {
                    part = Part.UNREADABLE;
                } else {
                    eof(p);
                    part = Part.ROWS;
                }
            }
            case ROWS -> row(p);
            default -> {
            }
        }
    }

    private void first(byte[] p) {
        if (p == null || p.length == 0) {
            part = Part.UNREADABLE;
            return;
        }
        switch (p[0] & 0xFF) {
            case OK -> afterResult(ok(p));
            case ERR -> error(p);
            case LOCAL_INFILE -> {
                localInfile = true;
                part = Part.DONE;
            }
            default -> {
                long columns = new LengthEncoded(p, 0).next();
                if (columns <= 0) {
                    part = Part.UNREADABLE;
                    return;
                }
                digest.update((byte) 'C');
                digestLong(columns);
                columnsLeft = columns;
                part = Part.COLUMNS;
            }
        }
    }

    private void row(byte[] p) {
        if (p == null) {
            return; // a long row, hashed as it passed
        }
        int first = p.length == 0 ? -1 : p[0] & 0xFF;
        if (first == ERR) {
            error(p);
        } else if (first == EOF && p.length < (deprecateEof ? MAX_PAYLOAD : EOF_MAX_LENGTH)) {
            afterResult(p.length < EOF_MAX_LENGTH && !deprecateEof ? eof(p) : ok(p));
        } else {
            hashData(p);
        }
    }

    private void hashData(byte[] p) {
        digest.update((byte) 'D');
        digestInt(p.length);
        digest.update(p);
    }

    /** An OK packet (0x00, or 0xFE ending rows): affected rows, insert id, warnings; returns its status. */
    private int ok(byte[] p) {
        LengthEncoded fields = new LengthEncoded(p, 1);
        long affected = fields.next();
        long insertId = fields.next();
        int at = fields.position();
        int status = at + 2 <= p.length ? u16(p, at) : 0;
        int warnings = at + 4 <= p.length ? u16(p, at + 2) : 0;
        digest.update((byte) 'O');
        digestLong(affected);
        digestLong(insertId);
        digestInt(warnings);
        return status;
    }

    /** An EOF packet: 0xFE, warnings (2), status (2); returns its status. */
    private int eof(byte[] p) {
        int warnings = p.length >= 3 ? u16(p, 1) : 0;
        digest.update((byte) 'W');
        digestInt(warnings);
        return p.length >= 5 ? u16(p, 3) : 0;
    }

    private void error(byte[] p) {
        digest.update((byte) 'E');
        digestInt(p.length >= 3 ? u16(p, 1) : 0);
        part = Part.DONE;
    }

    private void afterResult(int status) {
        part = (status & ServerStatus.MORE_RESULTS_EXISTS) != 0 ? Part.FIRST : Part.DONE;
    }

    private void digestInt(int v) {
        digest.update((byte) v);
        digest.update((byte) (v >>> 8));
        digest.update((byte) (v >>> 16));
        digest.update((byte) (v >>> 24));
    }

    private void digestLong(long v) {
        digestInt((int) v);
        digestInt((int) (v >>> 32));
    }

    private static int u16(byte[] p, int at) {
        return (p[at] & 0xFF) | (p[at + 1] & 0xFF) << 8;
    }

    /** Length-encoded integers read one after the other. */
    private static final class LengthEncoded {
        private final byte[] p;
        private int at;

        LengthEncoded(byte[] p, int at) {
            this.p = p;
            this.at = at;
        }

        /** The next integer; -1 when the packet ends first. */
        long next() {
            if (at >= p.length) {
                return -1;
            }
            int first = p[at++] & 0xFF;
            int size = switch (first) {
                case 0xFC -> 2;
                case 0xFD -> 3;
                case 0xFE -> 8;
                default -> 0;
            };
            if (first == 0xFB || first == 0xFF) {
                return -1;
            }
            if (size == 0) {
                return first;
            }
            if (at + size > p.length) {
                at = p.length;
                return -1;
            }
            long v = 0;
            for (int k = size - 1; k >= 0; k--) {
                v = (v << 8) | (p[at + k] & 0xFF);
            }
            at += size;
            return v;
        }

        int position() {
            return at;
        }
    }
}
