package dev.sluice.protocol.stream;

import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;
import static dev.sluice.protocol.packet.Packets.MAX_PAYLOAD;

import dev.sluice.protocol.ServerStatus;
import io.netty.buffer.ByteBuf;

/**
 * Finds where a server's response ends, in the byte stream itself, without decoding rows.
 *
 * <p>A proxy forwards responses; it does not rebuild them. What it must know is where each one
 * ends (to route the next command, to return a connection to a pool) and the status flags at the
 * end (in transaction? more results?). This scanner walks packet headers over whatever bytes have
 * arrived: row and column-definition packets are <em>passed through</em> as soon as their header
 * is seen — even before their payload is complete — while the few packets whose content matters
 * (the first packet of an answer, EOF/OK/ERR terminators, PREPARE_OK) are only settled once whole,
 * so the caller holds back at most one small packet between reads.
 *
 * <pre>
 *   scan(buf, from, to) ──▶ settled index s          bytes [from, s) may be forwarded now
 *                          isComplete()               the response ended exactly at s
 *                          bytes [s, to) are unsettled: present them again, with more after them
 * </pre>
 *
 * <p>Sharp edges handled here: a 0xFFFFFF-long packet is continued by the next one (its first
 * byte is data, not a header byte); a text row may start with 0xFE only when it is at least
 * 16 MB long, which is how an EOF/OK terminator is told from a row; under
 * CLIENT_DEPRECATE_EOF there is no EOF after column definitions and the result set ends with an
 * OK packet headed 0xFE. See
 * <a href="https://mariadb.com/kb/en/result-set-packets/">Result Set Packets</a> and
 * <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_com_query_response.html">COM_QUERY Response</a>.
 *
 * <p>Not thread-safe: one tracker per backend connection, used on its event loop.
 */
public final class ResponseTracker {
    private static final int OK = 0x00;
    private static final int EOF = 0xFE;
    private static final int ERR = 0xFF;
    private static final int LOCAL_INFILE = 0xFB;
    /** An EOF packet (pre-DEPRECATE_EOF) is 5 bytes; anything from 9 bytes on is a row. */
    private static final int EOF_MAX_LENGTH = 9;
    /** Offset of the status flags in an EOF payload: 0xFE, warnings (2), status (2). */
    private static final int EOF_STATUS_OFFSET = 3;
    private static final int STATUS_UNKNOWN = -1;

    private enum Phase { IDLE, FIRST, COLUMNS, COLUMNS_EOF, ROWS, PREPARE_FIRST, PREPARE_PARAMS,
        PREPARE_PARAMS_EOF, PREPARE_COLUMNS, PREPARE_COLUMNS_EOF, FIELD_LIST, SINGLE, STATISTICS, DONE }

    private final boolean deprecateEof;
    private ResponseListener listener = ResponseListener.NONE;
    private Phase phase = Phase.IDLE;
    private boolean cursorRequested;
    /** Payload bytes of the current pass-through packet still to come. */
    private long passThrough;
    /** The previous packet was 0xFFFFFF long: the next one continues it. */
    private boolean continued;
    private long countdown;
    private long preparedColumns;
    private int lastStatus = STATUS_UNKNOWN;
    private int lastWarnings;
    private long resultRows = -1;
    private boolean localInfile;
    private boolean error;
    /** The client did not negotiate session tracking: OK packets reporting session state are rewritten. */
    private boolean stripSessionState;
    /** The OK just settled reports session state the client did not ask for. */
    private boolean okToRewrite;
    /** Start of a settled OK packet to forward rewritten (see {@link #takeRewrite()}); -1 when none. */
    private int rewriteAt = -1;

    public ResponseTracker(boolean deprecateEof) {
        this.deprecateEof = deprecateEof;
    }

    /** Arms the tracker for the answer to the command just sent. */
    public void expect(ResponseKind kind, ResponseListener listener) {
        expect(kind, listener, false);
    }

    /**
     * Arms the tracker; with {@code stripSessionState} (the answer goes to a client that did not
     * negotiate CLIENT_SESSION_TRACK, while the connection did) every OK packet that reports
     * session state is pointed out, once settled, for the caller to forward rewritten (see
     * {@link #takeRewrite()}), and the SERVER_SESSION_STATE_CHANGED flag of EOF packets is cleared
     * in place.
     */
    public void expect(ResponseKind kind, ResponseListener listener, boolean stripSessionState) {
        this.listener = listener;
        this.stripSessionState = stripSessionState;
        this.okToRewrite = false;
        this.rewriteAt = -1;
        this.cursorRequested = kind == ResponseKind.RESULT_WITH_CURSOR;
        this.passThrough = 0;
        this.continued = false;
        this.localInfile = false;
        this.error = false;
        this.lastStatus = STATUS_UNKNOWN;
        this.lastWarnings = 0;
        this.resultRows = kind == ResponseKind.FETCH ? 0 : -1; // a FETCH answer is rows only
        this.phase = switch (kind) {
            case RESULT, RESULT_WITH_CURSOR -> Phase.FIRST;
            case PREPARE -> Phase.PREPARE_FIRST;
            case FETCH -> Phase.ROWS;
            case FIELD_LIST -> Phase.FIELD_LIST;
            case STATISTICS -> Phase.STATISTICS;
            case SINGLE -> Phase.SINGLE;
        };
    }

    public boolean isIdle() {
        return phase == Phase.IDLE;
    }

    /** True once the armed response has ended; {@link #expect} re-arms. */
    public boolean isComplete() {
        return phase == Phase.DONE;
    }

    /** Status flags of the last OK/EOF seen, or -1 when the response carried none (ERR). */
    public int lastStatus() {
        return lastStatus;
    }

    /** Warning count of the last OK/EOF seen (0 when none was seen). */
    public int lastWarnings() {
        return lastWarnings;
    }

    /** Rows of the response's last result set; -1 when it had none (an OK, an ERR). */
    public long resultRows() {
        return resultRows;
    }

    /** The response was a LOCAL INFILE request: the client must now send the file. */
    public boolean isLocalInfileRequest() {
        return localInfile;
    }

    /** The response ended with an ERR packet. */
    public boolean endedWithError() {
        return error;
    }

    /**
     * The start of the OK packet, settled by the last {@link #scan}, that must reach the client
     * without its session state ({@code OkPacket.withoutSessionState}); -1 when there is none.
     * A scan stops right after such a packet, so it is always the last one settled.
     */
    public int takeRewrite() {
        int at = rewriteAt;
        rewriteAt = -1;
        return at;
    }

    /** Marks the tracker idle after its completed response was consumed. */
    public void reset() {
        phase = Phase.IDLE;
        listener = ResponseListener.NONE;
    }

    /**
     * Scans {@code buf[from, to)}. Returns the settled index; stops early exactly where the
     * response completes. Bytes arriving while idle are not settled (the caller decides what an
     * unsolicited packet means).
     */
    public int scan(ByteBuf buf, int from, int to) {
        int i = from;
        while (i < to && phase != Phase.DONE && phase != Phase.IDLE) {
            if (passThrough > 0) {
                int n = (int) Math.min(passThrough, to - i);
                i += n;
                passThrough -= n;
                if (passThrough == 0) {
                    packetPassed();
                }
                continue;
            }
            if (to - i < HEADER_SIZE) {
                break;
            }
            int length = buf.getUnsignedMediumLE(i);
            boolean isContinuation = continued;
            continued = length == MAX_PAYLOAD;
            if (isContinuation || length == 0) {
                i += HEADER_SIZE;
                passThrough = length;
                if (length == 0) {
                    packetPassed();
                }
                continue;
            }
            if (to - i < HEADER_SIZE + 1) {
                continued = isContinuation;
                break;
            }
            int first = buf.getUnsignedByte(i + HEADER_SIZE);
            if (needsWhole(first, length)) {
                if (to - i < HEADER_SIZE + length) {
                    continued = isContinuation;
                    break;
                }
                inspect(buf, i + HEADER_SIZE, length, first);
                if (okToRewrite) {
                    okToRewrite = false;
                    rewriteAt = i;
                    i += HEADER_SIZE + length;
                    break;
                }
                i += HEADER_SIZE + length;
            } else {
                i += HEADER_SIZE;
                passThrough = length;
            }
        }
        return i;
    }

    private boolean isTerminator(int first, int length) {
        return first == EOF && (deprecateEof ? length < MAX_PAYLOAD : length < EOF_MAX_LENGTH);
    }

    /** Whether this packet's content decides something, so it must be whole before it settles. */
    private boolean needsWhole(int first, int length) {
        return switch (phase) {
            case FIRST, COLUMNS_EOF, PREPARE_FIRST, PREPARE_PARAMS_EOF, PREPARE_COLUMNS_EOF, SINGLE, STATISTICS -> true;
            case ROWS, FIELD_LIST -> first == ERR || isTerminator(first, length);
            default -> false;
        };
    }

    /** A pass-through packet has been fully passed: count it where counting matters. */
    private void packetPassed() {
        if (continued) {
            return;
        }
        switch (phase) {
            case COLUMNS -> {
                if (--countdown == 0) {
                    phase = deprecateEof ? afterColumnsWithoutEof() : Phase.COLUMNS_EOF;
                }
            }
            case ROWS -> resultRows++;
            case PREPARE_PARAMS -> {
                if (--countdown == 0) {
                    phase = deprecateEof ? afterPrepareParams() : Phase.PREPARE_PARAMS_EOF;
                }
            }
            case PREPARE_COLUMNS -> {
                if (--countdown == 0) {
                    phase = deprecateEof ? Phase.DONE : Phase.PREPARE_COLUMNS_EOF;
                }
            }
            default -> {
            }
        }
    }

    private Phase afterColumnsWithoutEof() {
        // With a cursor and CLIENT_DEPRECATE_EOF the server still closes the metadata with a
        // terminator carrying SERVER_STATUS_CURSOR_EXISTS; COLUMNS_EOF reads it either way.
        return cursorRequested ? Phase.COLUMNS_EOF : Phase.ROWS;
    }

    private Phase afterPrepareParams() {
        if (preparedColumns == 0) {
            return Phase.DONE;
        }
        countdown = preparedColumns;
        return Phase.PREPARE_COLUMNS;
    }

    private void inspect(ByteBuf buf, int payload, int length, int first) {
        if (first == ERR && phase != Phase.STATISTICS) {
            error = true;
            lastStatus = STATUS_UNKNOWN;
            listener.onError(buf, payload, length);
            phase = Phase.DONE;
            return;
        }
        switch (phase) {
            case FIRST -> inspectFirst(buf, payload, length, first);
            case COLUMNS_EOF -> {
                int status = terminatorStatus(buf, payload, length, first);
                phase = cursorRequested && (status & ServerStatus.CURSOR_EXISTS) != 0 ? Phase.DONE : Phase.ROWS;
            }
            case ROWS -> {
                int status = terminatorStatus(buf, payload, length, first);
                phase = (status & ServerStatus.MORE_RESULTS_EXISTS) != 0 ? Phase.FIRST : Phase.DONE;
            }
            case FIELD_LIST -> {
                terminatorStatus(buf, payload, length, first);
                phase = Phase.DONE;
            }
            case PREPARE_FIRST -> inspectPrepareOk(buf, payload, length);
            case PREPARE_PARAMS_EOF -> phase = afterPrepareParams();
            case PREPARE_COLUMNS_EOF -> phase = Phase.DONE;
            case SINGLE -> {
                if (first == OK) {
                    settledOk(buf, payload, length);
                } else if (first == EOF && length < EOF_MAX_LENGTH) {
                    settledEof(buf, payload, length);
                }
                phase = Phase.DONE;
            }
            case STATISTICS -> phase = Phase.DONE;
            default -> throw new IllegalStateException("inspect in phase " + phase);
        }
    }

    /** An OK packet, settled: its status and warnings read, the listener told. */
    private void settledOk(ByteBuf buf, int payload, int length) {
        lastStatus = okStatus(buf, payload, length);
        lastWarnings = okWarnings(buf, payload, length);
        listener.onOk(buf, payload, length);
        okToRewrite = stripSessionState && (lastStatus & ServerStatus.SESSION_STATE_CHANGED) != 0;
    }

    private void inspectFirst(ByteBuf buf, int payload, int length, int first) {
        if (first == OK) {
            settledOk(buf, payload, length);
            phase = (lastStatus & ServerStatus.MORE_RESULTS_EXISTS) != 0 ? Phase.FIRST : Phase.DONE;
        } else if (first == LOCAL_INFILE) {
            localInfile = true;
            listener.onLocalInfileRequest(buf, payload, length);
            phase = Phase.DONE;
        } else {
            long columns = LengthEncodedReader.readInt(buf, payload, payload + length);
            if (columns <= 0) {
                // Not a column count: the stream is not what we think it is. End here so the
                // caller sees an odd response rather than waiting forever.
                phase = Phase.DONE;
                return;
            }
            countdown = columns;
            resultRows = 0;
            phase = Phase.COLUMNS;
        }
    }

    private void inspectPrepareOk(ByteBuf buf, int payload, int length) {
        // 0x00, stmt id (4), columns (2), params (2), filler (1), warnings (2)
        final int columnsOffset = 5;
        final int paramsOffset = 7;
        if (length < paramsOffset + 2) {
            phase = Phase.DONE;
            return;
        }
        listener.onPrepareOk(buf, payload, length);
        preparedColumns = buf.getUnsignedShortLE(payload + columnsOffset);
        int params = buf.getUnsignedShortLE(payload + paramsOffset);
        if (params > 0) {
            countdown = params;
            phase = Phase.PREPARE_PARAMS;
        } else {
            phase = afterPrepareParams();
        }
    }

    /** Status of a terminator: OK layout under DEPRECATE_EOF, EOF layout otherwise. */
    private int terminatorStatus(ByteBuf buf, int payload, int length, int first) {
        if (first == EOF && length < EOF_MAX_LENGTH) {
            settledEof(buf, payload, length);
        } else {
            settledOk(buf, payload, length);
        }
        return lastStatus;
    }

    /**
     * An EOF packet, settled. A 5-byte EOF has no room for session state; only its flag, which
     * a client that did not ask for tracking never sees from a server, is cleared in place. The
     * 0xFE OK that ends a result set under DEPRECATE_EOF is read by the EOF layout for its status
     * (its first fields are one byte each) and rewritten like any OK.
     */
    private void settledEof(ByteBuf buf, int payload, int length) {
        lastStatus = eofStatus(buf, payload, length);
        lastWarnings = eofWarnings(buf, payload, length);
        if ((lastStatus & ServerStatus.SESSION_STATE_CHANGED) != 0 && length <= EOF_STATUS_OFFSET + 2) {
            listener.onSessionStateNotSent();
        }
        if (stripSessionState && (lastStatus & ServerStatus.SESSION_STATE_CHANGED) != 0) {
            if (length > EOF_STATUS_OFFSET + 2) {
                okToRewrite = true;
            } else {
                buf.setShortLE(payload + EOF_STATUS_OFFSET, lastStatus & ~ServerStatus.SESSION_STATE_CHANGED);
            }
        }
    }

    private static int eofStatus(ByteBuf buf, int payload, int length) {
        // 0xFE, warnings (2), status (2)
        final int statusOffset = 3;
        return length >= statusOffset + 2 ? buf.getUnsignedShortLE(payload + statusOffset) : 0;
    }

    /**
     * Warning count of a short 0xFE terminator: an EOF is 5 bytes (0xFE, warnings, status); a
     * longer one is the OK that ends a result set under DEPRECATE_EOF, whose status the EOF
     * reading gets right (its affected rows and insert id are one zero byte each) but whose
     * warnings come after the status.
     */
    private static int eofWarnings(ByteBuf buf, int payload, int length) {
        final int eofLength = 5;
        if (length > eofLength) {
            return okWarnings(buf, payload, length);
        }
        return length >= 3 ? buf.getUnsignedShortLE(payload + 1) : 0;
    }

    /** Warning count of an OK packet: after the status flags (protocol 4.1). */
    static int okWarnings(ByteBuf buf, int payload, int length) {
        int end = payload + length;
        int p = payload + 1;
        p = LengthEncodedReader.skip(buf, p, end);
        p = LengthEncodedReader.skip(buf, p, end);
        return p >= 0 && p + 4 <= end ? buf.getUnsignedShortLE(p + 2) : 0;
    }

    /** Status flags of an OK packet: header, affected rows, last insert id, then status. */
    static int okStatus(ByteBuf buf, int payload, int length) {
        int end = payload + length;
        int p = payload + 1;
        p = LengthEncodedReader.skip(buf, p, end);
        p = LengthEncodedReader.skip(buf, p, end);
        return p >= 0 && p + 2 <= end ? buf.getUnsignedShortLE(p) : 0;
    }
}
