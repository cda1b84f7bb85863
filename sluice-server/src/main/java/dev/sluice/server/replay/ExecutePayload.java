package dev.sluice.server.replay;

/**
 * The payload of a COM_STMT_EXECUTE as a replay needs it. Its layout: command byte, statement id
 * (4), flags (1), iteration count (4), then for a statement with parameters the NULL bitmap, the
 * "new parameters bound" byte, the types (2 per parameter) when that byte is 1, and the values.
 *
 * <p>A client sends the types once and leaves them out of the executes that follow on the same
 * connection; the connection a replay opens has seen none, and would misread the values. So an
 * execute is recorded with the types in, always.
 */
public final class ExecutePayload {
    /** Where the statement id sits in an EXECUTE, SEND_LONG_DATA, RESET or CLOSE payload. */
    public static final int STATEMENT_ID_OFFSET = 1;
    private static final int FLAGS_OFFSET = STATEMENT_ID_OFFSET + 4;
    private static final int PARAMS_OFFSET = FLAGS_OFFSET + 1 + 4;
    /** CURSOR_TYPE_READ_ONLY, FOR_UPDATE, SCROLLABLE: the execute opens a cursor. */
    private static final int CURSOR_FLAGS = 0x07;

    private ExecutePayload() {
    }

    /** Whether an EXECUTE with these flags opens a cursor (its rows come with COM_STMT_FETCH). */
    public static boolean opensCursor(int flags) {
        return (flags & CURSOR_FLAGS) != 0;
    }

    /** The offset of the flags byte in an EXECUTE payload. */
    public static int flagsOffset() {
        return FLAGS_OFFSET;
    }

    /**
     * {@code payload} (a copy the caller gives up) under {@code clientStatementId}, with the
     * parameter types put in when it leaves them out and {@code lastTypes} (2 bytes per parameter)
     * are known. A payload too short for its parameters is kept as it is: the server answered it
     * with an error, and will again.
     */
    public static byte[] forReplay(byte[] payload, int clientStatementId, int paramCount, byte[] lastTypes) {
        int boundAt = PARAMS_OFFSET + (paramCount + 7) / 8;
        if (paramCount == 0 || boundAt >= payload.length || payload[boundAt] != 0 || lastTypes == null
                || lastTypes.length != 2 * paramCount) {
            return withStatementId(payload, clientStatementId);
        }
        byte[] out = new byte[payload.length + lastTypes.length];
        System.arraycopy(payload, 0, out, 0, boundAt);
        out[boundAt] = 1;
        System.arraycopy(lastTypes, 0, out, boundAt + 1, lastTypes.length);
        System.arraycopy(payload, boundAt + 1, out, boundAt + 1 + lastTypes.length, payload.length - boundAt - 1);
        return withStatementId(out, clientStatementId);
    }

    /** {@code payload} itself, its statement id set to {@code id}. */
    public static byte[] withStatementId(byte[] payload, int id) {
        payload[STATEMENT_ID_OFFSET] = (byte) id;
        payload[STATEMENT_ID_OFFSET + 1] = (byte) (id >>> 8);
        payload[STATEMENT_ID_OFFSET + 2] = (byte) (id >>> 16);
        payload[STATEMENT_ID_OFFSET + 3] = (byte) (id >>> 24);
        return payload;
    }
}
