package dev.sluice.protocol.response;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * The binary protocol's side of a statement the proxy answers itself (e.g. a prepared
 * {@code SELECT sluice_last_gtid()}): the PREPARE answer, then for each EXECUTE a binary result
 * set of utf8mb4 VARCHAR columns.
 *
 * <pre>
 * PREPARE:  PREPARE_OK (n columns, 0 parameters) ─▶ column definition × n ─▶ [EOF]
 * EXECUTE:  column count ─▶ column definition × n ─▶ [EOF] ─▶ row × m ─▶ EOF, or OK with 0xFE header
 * row:      0x00, NULL bitmap (2 reserved bits, then one per column), each non-NULL value length-encoded
 * </pre>
 *
 * The EOFs in brackets are absent under CLIENT_DEPRECATE_EOF. Sequence ids run on from
 * {@code firstSequenceId}.
 *
 * @see <a href="https://mariadb.com/kb/en/resultset-row/#binary-resultset-row">MariaDB: binary resultset row</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_binary_resultset.html">MySQL:
 *     binary protocol resultset</a>
 */
public final class BinaryResultWriter {
    private static final int ROW_HEADER = 0x00;
    /** The first two bits of a binary row's NULL bitmap are reserved. */
    private static final int NULL_BITMAP_OFFSET = 2;

    private BinaryResultWriter() {}

    /** The answer to COM_STMT_PREPARE; returns the sequence id after the last packet written. */
    public static int writePrepareOk(ByteBuf out, int firstSequenceId, long caps, long statementId,
            List<ColumnDefinition> columns) {
        int seq = new PrepareOk(statementId, columns.size(), 0, 0).encode(out, firstSequenceId);
        return writeDefinitions(out, seq, caps, 0, columns);
    }

    /**
     * A whole binary result set; {@code rows} hold one string per column, {@code null} for SQL NULL.
     * Returns the sequence id after the last packet written.
     */
    public static int write(ByteBuf out, int firstSequenceId, long caps, int statusFlags, List<ColumnDefinition> columns,
            List<? extends List<String>> rows) {
        int seq = firstSequenceId;
        int start = Packets.beginPacket(out);
        new ColumnCount(columns.size()).encodePayload(out, caps);
        seq = Packets.endPacket(out, start, seq);
        seq = writeDefinitions(out, seq, caps, statusFlags, columns);
        int bitmapBytes = (columns.size() + 7 + NULL_BITMAP_OFFSET) / 8;
        for (List<String> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("row has " + row.size() + " values for " + columns.size() + " columns");
            }
            start = Packets.beginPacket(out);
            out.writeByte(ROW_HEADER);
            int bitmap = out.writerIndex();
            out.writeZero(bitmapBytes);
            for (int c = 0; c < row.size(); c++) {
                String value = row.get(c);
                if (value == null) {
                    int bit = c + NULL_BITMAP_OFFSET;
                    out.setByte(bitmap + bit / 8, out.getByte(bitmap + bit / 8) | (1 << (bit % 8)));
                } else {
                    LengthEncoded.writeString(out, value);
                }
            }
            seq = Packets.endPacket(out, start, seq);
        }
        if (Capabilities.has(caps, Capabilities.CLIENT_DEPRECATE_EOF)) {
            return OkPacket.of(statusFlags).encode(out, seq, caps, true);
        }
        return new EofPacket(0, statusFlags).encode(out, seq, caps);
    }

    private static int writeDefinitions(ByteBuf out, int firstSequenceId, long caps, int statusFlags,
            List<ColumnDefinition> columns) {
        int seq = firstSequenceId;
        for (ColumnDefinition definition : columns) {
            int start = Packets.beginPacket(out);
            definition.encodePayload(out, caps);
            seq = Packets.endPacket(out, start, seq);
        }
        if (!columns.isEmpty() && !Capabilities.has(caps, Capabilities.CLIENT_DEPRECATE_EOF)) {
            seq = new EofPacket(0, statusFlags).encode(out, seq, caps);
        }
        return seq;
    }
}
