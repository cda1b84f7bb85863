package dev.sluice.protocol.response;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;

/**
 * The first packet of a successful COM_STMT_PREPARE response.
 *
 * <pre>
 * int&lt;1&gt; 0x00
 * int&lt;4&gt; statement id          at offset {@value #STATEMENT_ID_OFFSET}: rewrite in place to map ids
 * int&lt;2&gt; number of columns
 * int&lt;2&gt; number of parameters
 * int&lt;1&gt; reserved (0)          both absent from some old
 * int&lt;2&gt; warnings              servers' 9-byte form
 * </pre>
 *
 * <p>It is followed by one column-definition packet per parameter, then one per column; each
 * non-empty group ends with an EOF unless CLIENT_DEPRECATE_EOF ({@link #followingPackets}).
 *
 * @param statementId the server's statement id (unsigned 32 bits)
 * @param columnCount columns in the result
 * @param parameterCount '?' placeholders
 * @param warnings warning count
 * @see <a href="https://mariadb.com/kb/en/com_stmt_prepare/#com_stmt_prepare_ok">MariaDB: COM_STMT_PREPARE_OK</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_com_stmt_prepare.html">MySQL: COM_STMT_PREPARE</a>
 */
public record PrepareOk(long statementId, int columnCount, int parameterCount, int warnings) {
    public static final int HEADER = 0x00;
    /** Offset of the statement id in the payload. */
    public static final int STATEMENT_ID_OFFSET = 1;
    /** Payload length with the warnings field. */
    public static final int LENGTH = 12;
    private static final int MIN_LENGTH = 9;

    /** The statement id of a PREPARE OK payload, read in place. */
    public static long statementIdOf(ByteBuf payload) {
        requireLength(payload);
        return payload.getUnsignedIntLE(payload.readerIndex() + STATEMENT_ID_OFFSET);
    }

    /** Replaces the statement id in a PREPARE OK payload (or a COM_STMT_* request: same offset). */
    public static void rewriteStatementId(ByteBuf payload, long statementId) {
        requireLength(payload);
        payload.setIntLE(payload.readerIndex() + STATEMENT_ID_OFFSET, (int) statementId);
    }

    /** Packets that follow this one in the response: definitions plus their EOFs. */
    public int followingPackets(long caps) {
        int eofs = Capabilities.has(caps, Capabilities.CLIENT_DEPRECATE_EOF)
                ? 0
                : (parameterCount > 0 ? 1 : 0) + (columnCount > 0 ? 1 : 0);
        return parameterCount + columnCount + eofs;
    }

    public void encodePayload(ByteBuf out) {
        out.writeByte(HEADER)
                .writeIntLE((int) statementId)
                .writeShortLE(columnCount)
                .writeShortLE(parameterCount)
                .writeByte(0)
                .writeShortLE(warnings);
    }

    /** Writes a whole packet; returns the next sequence id. */
    public int encode(ByteBuf out, int sequenceId) {
        int start = Packets.beginPacket(out);
        encodePayload(out);
        return Packets.endPacket(out, start, sequenceId);
    }

    public static PrepareOk decode(ByteBuf in) {
        int header = Fields.readInt1(in, "PREPARE OK header");
        if (header != HEADER) {
            throw new MalformedPacketException(String.format("PREPARE OK: header 0x%02x", header));
        }
        long id = Fields.readInt4(in, "statement id");
        int columns = Fields.readInt2(in, "number of columns");
        int params = Fields.readInt2(in, "number of parameters");
        // The reserved byte and the warnings are missing from some old servers' 9-byte form.
        if (in.isReadable()) {
            in.skipBytes(1);
        }
        int warnings = in.readableBytes() >= 2 ? Fields.readInt2(in, "warnings") : 0;
        return new PrepareOk(id, columns, params, warnings);
    }

    private static void requireLength(ByteBuf payload) {
        if (payload.readableBytes() < MIN_LENGTH) {
            throw new MalformedPacketException("PREPARE OK: " + payload.readableBytes() + " bytes");
        }
    }
}
