package dev.sluice.protocol.response;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.LengthEncoded;
import io.netty.buffer.ByteBuf;
import java.util.Objects;
import java.util.Optional;

/**
 * A column definition (Protocol::ColumnDefinition41).
 *
 * <pre>
 * string&lt;lenenc&gt; catalog ("def"), schema, table alias, table, column alias, column
 * MARIADB_CLIENT_EXTENDED_TYPE_INFO: string&lt;lenenc&gt; extended info = (int&lt;1&gt; key, string&lt;lenenc&gt; value)*
 *                                   key 0: type name (e.g. json), key 1: format
 * int&lt;lenenc&gt;    length of the fixed fields (0x0C)
 * int&lt;2&gt; collation, int&lt;4&gt; column length, int&lt;1&gt; type, int&lt;2&gt; flags, int&lt;1&gt; decimals, int&lt;2&gt; unused
 * </pre>
 *
 * @see <a href="https://mariadb.com/kb/en/result-set-packets/#column-definition-packet">MariaDB: column definition packet</a>
 */
public record ColumnDefinition(String catalog, String schema, String table, String orgTable, String name,
        String orgName, Optional<String> extendedType, Optional<String> extendedFormat, int collation,
        long columnLength, int type, int flags, int decimals) {

    /** MYSQL_TYPE_VAR_STRING. */
    public static final int TYPE_VAR_STRING = 0xFD;
    /** utf8mb4_general_ci. */
    public static final int COLLATION_UTF8MB4 = 45;
    /** Decimals value of a string column. */
    public static final int DECIMALS_NONE = 0x1F;
    private static final int FIXED_FIELDS_LENGTH = 0x0C;
    private static final int KEY_TYPE = 0;
    private static final int KEY_FORMAT = 1;
    private static final int MAX_CHAR_BYTES = 4;

    public ColumnDefinition {
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(orgTable, "orgTable");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(orgName, "orgName");
        Objects.requireNonNull(extendedType, "extendedType");
        Objects.requireNonNull(extendedFormat, "extendedFormat");
    }

    /** A computed utf8mb4 VARCHAR column of {@code maxChars} characters, as a server describes one. */
    public static ColumnDefinition varString(String name, int maxChars) {
        return new ColumnDefinition("def", "", "", "", name, "", Optional.empty(), Optional.empty(),
                COLLATION_UTF8MB4, (long) maxChars * MAX_CHAR_BYTES, TYPE_VAR_STRING, 0, DECIMALS_NONE);
    }

    public void encodePayload(ByteBuf out, long caps) {
        LengthEncoded.writeString(out, catalog);
        LengthEncoded.writeString(out, schema);
        LengthEncoded.writeString(out, table);
        LengthEncoded.writeString(out, orgTable);
        LengthEncoded.writeString(out, name);
        LengthEncoded.writeString(out, orgName);
        if (Capabilities.has(caps, Capabilities.MARIADB_CLIENT_EXTENDED_TYPE_INFO)) {
            ByteBuf info = out.alloc().buffer();
            try {
                extendedType.ifPresent(t -> LengthEncoded.writeString(info.writeByte(KEY_TYPE), t));
                extendedFormat.ifPresent(f -> LengthEncoded.writeString(info.writeByte(KEY_FORMAT), f));
                LengthEncoded.writeBytes(out, info);
            } finally {
                info.release();
            }
        }
        LengthEncoded.writeInteger(out, FIXED_FIELDS_LENGTH);
        out.writeShortLE(collation)
                .writeIntLE((int) columnLength)
                .writeByte(type)
                .writeShortLE(flags)
                .writeByte(decimals)
                .writeShortLE(0);
    }

    public static ColumnDefinition decode(ByteBuf in, long caps) {
        String catalog = LengthEncoded.readString(in, "catalog");
        String schema = LengthEncoded.readString(in, "schema");
        String table = LengthEncoded.readString(in, "table");
        String orgTable = LengthEncoded.readString(in, "org table");
        String name = LengthEncoded.readString(in, "name");
        String orgName = LengthEncoded.readString(in, "org name");
        Optional<String> extendedType = Optional.empty();
        Optional<String> extendedFormat = Optional.empty();
        if (Capabilities.has(caps, Capabilities.MARIADB_CLIENT_EXTENDED_TYPE_INFO)) {
            ByteBuf info = LengthEncoded.readSlice(in, "extended type info");
            while (info.isReadable()) {
                int key = Fields.readInt1(info, "extended type info key");
                String value = LengthEncoded.readString(info, "extended type info value");
                if (key == KEY_TYPE) {
                    extendedType = Optional.of(value);
                } else if (key == KEY_FORMAT) {
                    extendedFormat = Optional.of(value);
                }
            }
        }
        int fixed = LengthEncoded.readLength(in, "fixed fields");
        int start = in.readerIndex();
        int collation = Fields.readInt2(in, "collation");
        long length = Fields.readInt4(in, "column length");
        int type = Fields.readInt1(in, "column type");
        int flags = Fields.readInt2(in, "column flags");
        int decimals = Fields.readInt1(in, "decimals");
        // Skip the unused filler, honouring the announced length of the fixed part.
        in.readerIndex(Math.max(in.readerIndex(), start + fixed));
        return new ColumnDefinition(catalog, schema, table, orgTable, name, orgName, extendedType, extendedFormat,
                collation, length, type, flags, decimals);
    }
}
