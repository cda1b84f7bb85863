package dev.sluice.protocol.response;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;

/**
 * The first packet of a result set: the number of columns.
 *
 * <p>Sharp edges: with MariaDB's MARIADB_CLIENT_CACHE_METADATA a "metadata follows" byte comes
 * <em>after</em> the count (0: column definitions are skipped, the client reuses its cache);
 * with MySQL's CLIENT_OPTIONAL_RESULTSET_METADATA the same flag comes <em>before</em> it.
 * A first byte of 0x00 (OK), 0xFF (ERR) or 0xFB (LOCAL INFILE request) is not a column count.
 *
 * @param count number of columns (at least 1)
 * @param metadataFollows whether column definitions follow
 * @see <a href="https://mariadb.com/kb/en/result-set-packets/#column-count-packet">MariaDB: column count packet</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_com_query_response_text_resultset.html">MySQL:
 *     text resultset</a>
 */
public record ColumnCount(long count, boolean metadataFollows) {

    public ColumnCount(long count) {
        this(count, true);
    }

    public void encodePayload(ByteBuf out, long caps) {
        if (Capabilities.has(caps, Capabilities.CLIENT_OPTIONAL_RESULTSET_METADATA)) {
            out.writeByte(metadataFollows ? 1 : 0);
        }
        LengthEncoded.writeInteger(out, count);
        if (Capabilities.has(caps, Capabilities.MARIADB_CLIENT_CACHE_METADATA)) {
            out.writeByte(metadataFollows ? 1 : 0);
        }
    }

    public static ColumnCount decode(ByteBuf in, long caps) {
        boolean follows = true;
        if (Capabilities.has(caps, Capabilities.CLIENT_OPTIONAL_RESULTSET_METADATA)) {
            follows = Fields.readInt1(in, "metadata follows") != 0;
        }
        long count = LengthEncoded.readInteger(in);
        if (count <= 0) {
            throw new MalformedPacketException("column count " + Long.toUnsignedString(count));
        }
        if (Capabilities.has(caps, Capabilities.MARIADB_CLIENT_CACHE_METADATA)) {
            follows = Fields.readInt1(in, "metadata follows") != 0;
        }
        return new ColumnCount(count, follows);
    }
}
