package dev.sluice.protocol.response;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a small text-protocol result set, for answers the proxy gives itself (e.g.
 * {@code SELECT sluice_last_gtid()}):
 *
 * <pre>
 * column count ─▶ column definition × n ─▶ [EOF] ─▶ row × m ─▶ EOF, or OK with 0xFE header
 *                                          (absent under CLIENT_DEPRECATE_EOF)   (DEPRECATE_EOF)
 * </pre>
 *
 * Every column is a utf8mb4 VARCHAR. Sequence ids run on from {@code firstSequenceId}.
 *
 * @see <a href="https://mariadb.com/kb/en/result-set-packets/">MariaDB: result set packets</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_com_query_response_text_resultset.html">MySQL:
 *     text resultset</a>
 */
public final class TextResultWriter {
    private static final int MIN_DISPLAY_CHARS = 1;

    private TextResultWriter() {}

    /**
     * Writes the whole result set.
     *
     * @param rows rows of column values; a {@code null} value is SQL NULL
     * @return the sequence id after the last packet written
     */
    public static int write(ByteBuf out, int firstSequenceId, long caps, int statusFlags, List<String> columnNames,
            List<? extends List<String>> rows) {
        if (columnNames.isEmpty()) {
            throw new IllegalArgumentException("a result set needs at least one column");
        }
        int columns = columnNames.size();
        List<ColumnDefinition> definitions = new ArrayList<>(columns);
        for (int c = 0; c < columns; c++) {
            definitions.add(ColumnDefinition.varString(columnNames.get(c), widest(rows, c)));
        }
        int seq = firstSequenceId;
        int start = Packets.beginPacket(out);
        new ColumnCount(columns).encodePayload(out, caps);
        seq = Packets.endPacket(out, start, seq);
        for (ColumnDefinition definition : definitions) {
            start = Packets.beginPacket(out);
            definition.encodePayload(out, caps);
            seq = Packets.endPacket(out, start, seq);
        }
        boolean deprecateEof = Capabilities.has(caps, Capabilities.CLIENT_DEPRECATE_EOF);
        if (!deprecateEof) {
            seq = new EofPacket(0, statusFlags).encode(out, seq, caps);
        }
        for (List<String> row : rows) {
            if (row.size() != columns) {
                throw new IllegalArgumentException("row has " + row.size() + " values for " + columns + " columns");
            }
            start = Packets.beginPacket(out);
            for (String value : row) {
                if (value == null) {
                    LengthEncoded.writeNull(out);
                } else {
                    LengthEncoded.writeString(out, value);
                }
            }
            seq = Packets.endPacket(out, start, seq);
        }
        if (deprecateEof) {
            return OkPacket.of(statusFlags).encode(out, seq, caps, true);
        }
        return new EofPacket(0, statusFlags).encode(out, seq, caps);
    }

    private static int widest(List<? extends List<String>> rows, int column) {
        int widest = MIN_DISPLAY_CHARS;
        for (List<String> row : rows) {
            if (column < row.size() && row.get(column) != null) {
                widest = Math.max(widest, row.get(column).length());
            }
        }
        return widest;
    }
}
