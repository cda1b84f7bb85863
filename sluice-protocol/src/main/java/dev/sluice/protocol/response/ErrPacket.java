package dev.sluice.protocol.response;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The ERR packet.
 *
 * <pre>
 * int&lt;1&gt;      0xFF
 * int&lt;2&gt;      error code
 * string[1]   '#' SQL state marker   (PROTOCOL_41; absent in the pre-4.1 form and in errors
 * string[5]   SQL state               a server sends before capabilities are known)
 * string&lt;EOF&gt; message
 * </pre>
 *
 * <p>Sharp edge: with MARIADB_CLIENT_PROGRESS an 0xFF packet with code 0xFFFF is a progress
 * report, not an error ({@link #isProgressReport}); the statement is still running.
 *
 * @param errorCode server error number, e.g. 1045
 * @param sqlState five-character SQLSTATE, e.g. {@code 28000}
 * @param message human-readable message
 * @see <a href="https://mariadb.com/kb/en/err_packet/">MariaDB: ERR_Packet</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_basic_err_packet.html">MySQL: ERR_Packet</a>
 */
public record ErrPacket(int errorCode, String sqlState, String message) {
    public static final int HEADER = 0xFF;
    public static final int PROGRESS_REPORT_CODE = 0xFFFF;
    private static final byte SQL_STATE_MARKER = '#';
    private static final int SQL_STATE_LENGTH = 5;
    /**
     * A SQLSTATE is five ASCII characters; read and written as ISO-8859-1, one byte per character,
     * so that whatever five bytes a peer sends survive decode and encode unchanged (as US-ASCII a
     * byte above 0x7F decoded to U+FFFD and came back as '?').
     */
    private static final Charset SQL_STATE_CHARSET = StandardCharsets.ISO_8859_1;
    /** SQLSTATE reported when the packet carries none. */
    public static final String DEFAULT_SQL_STATE = "HY000";

    public ErrPacket {
        Objects.requireNonNull(message, "message");
        if (sqlState.length() != SQL_STATE_LENGTH) {
            throw new IllegalArgumentException("SQLSTATE must have 5 characters: '" + sqlState + "'");
        }
    }

    public static boolean isErr(ByteBuf payload) {
        return payload.isReadable() && payload.getUnsignedByte(payload.readerIndex()) == HEADER;
    }

    /** True for MariaDB's progress report (0xFF, code 0xFFFF), which is not an error. */
    public static boolean isProgressReport(ByteBuf payload) {
        return isErr(payload) && payload.readableBytes() >= 3
                && payload.getUnsignedShortLE(payload.readerIndex() + 1) == PROGRESS_REPORT_CODE;
    }

    /** Writes the payload; the SQL state is included when {@code caps} has PROTOCOL_41. */
    public void encodePayload(ByteBuf out, long caps) {
        out.writeByte(HEADER).writeShortLE(errorCode);
        if (Capabilities.has(caps, Capabilities.CLIENT_PROTOCOL_41)) {
            out.writeByte(SQL_STATE_MARKER);
            out.writeCharSequence(sqlState, SQL_STATE_CHARSET);
        }
        out.writeCharSequence(message, StandardCharsets.UTF_8);
    }

    /** Writes a whole packet; returns the next sequence id. */
    public int encode(ByteBuf out, int sequenceId, long caps) {
        int start = Packets.beginPacket(out);
        encodePayload(out, caps);
        return Packets.endPacket(out, start, sequenceId);
    }

    /** Reads an ERR payload, with or without the SQL state. */
    public static ErrPacket decode(ByteBuf in) {
        int header = Fields.readInt1(in, "ERR header");
        if (header != HEADER) {
            throw new MalformedPacketException(String.format("ERR packet: header 0x%02x", header));
        }
        int code = Fields.readInt2(in, "error code");
        if (code == PROGRESS_REPORT_CODE) {
            throw new MalformedPacketException("ERR packet: code 0xFFFF is a progress report, not an error");
        }
        String state = DEFAULT_SQL_STATE;
        if (in.isReadable() && in.getByte(in.readerIndex()) == SQL_STATE_MARKER) {
            in.skipBytes(1);
            state = new String(Fields.readFixed(in, SQL_STATE_LENGTH, "SQL state"), SQL_STATE_CHARSET);
        }
        return new ErrPacket(code, state, Fields.readRestString(in, StandardCharsets.UTF_8));
    }

    /** {@code ER_ACCESS_DENIED_ERROR}, worded as the server words it. */
    public static ErrPacket accessDenied(String user, String host, boolean usingPassword) {
        return new ErrPacket(ErrorCodes.ER_ACCESS_DENIED_ERROR, "28000", "Access denied for user '" + user
                + "'@'" + host + "' (using password: " + (usingPassword ? "YES" : "NO") + ")");
    }
}
