package dev.sluice.protocol;

import java.util.StringJoiner;

/**
 * Capability flags negotiated in the handshake.
 *
 * <p>The MySQL flags occupy the lower 32 bits. MariaDB's extended capabilities occupy the
 * upper 32 bits of the same {@code long}: on the wire they travel in the 4 bytes that MySQL
 * reserves as filler in the server greeting and in the client's handshake response, and
 * they are only meaningful when {@link #CLIENT_MYSQL} (bit 0) is <em>not</em> set — a
 * MariaDB server announces itself by clearing that bit.
 *
 * @see <a href="https://mariadb.com/kb/en/connection/#capabilities">MariaDB: Connection, capabilities</a>
 * @see <a href="https://mariadb.com/kb/en/mariadb-protocol-differences-with-mysql/">MariaDB
 *     protocol differences with MySQL</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/group__group__cs__capabilities__flags.html">MySQL:
 *     capability flags</a>
 */
public final class Capabilities {
    /** Bit 0: MySQL's CLIENT_LONG_PASSWORD; a MariaDB server leaves it clear. */
    public static final long CLIENT_MYSQL = 1L;
    /** Alias of {@link #CLIENT_MYSQL} under its MySQL name. */
    public static final long CLIENT_LONG_PASSWORD = CLIENT_MYSQL;
    public static final long CLIENT_FOUND_ROWS = 1L << 1;
    public static final long CLIENT_LONG_FLAG = 1L << 2;
    public static final long CLIENT_CONNECT_WITH_DB = 1L << 3;
    public static final long CLIENT_NO_SCHEMA = 1L << 4;
    public static final long CLIENT_COMPRESS = 1L << 5;
    public static final long CLIENT_ODBC = 1L << 6;
    public static final long CLIENT_LOCAL_FILES = 1L << 7;
    public static final long CLIENT_IGNORE_SPACE = 1L << 8;
    public static final long CLIENT_PROTOCOL_41 = 1L << 9;
    public static final long CLIENT_INTERACTIVE = 1L << 10;
    public static final long CLIENT_SSL = 1L << 11;
    public static final long CLIENT_IGNORE_SIGPIPE = 1L << 12;
    public static final long CLIENT_TRANSACTIONS = 1L << 13;
    public static final long CLIENT_RESERVED = 1L << 14;
    /** Also known as CLIENT_RESERVED2: 4.1 authentication (length-prefixed auth response). */
    public static final long CLIENT_SECURE_CONNECTION = 1L << 15;
    public static final long CLIENT_MULTI_STATEMENTS = 1L << 16;
    public static final long CLIENT_MULTI_RESULTS = 1L << 17;
    public static final long CLIENT_PS_MULTI_RESULTS = 1L << 18;
    public static final long CLIENT_PLUGIN_AUTH = 1L << 19;
    public static final long CLIENT_CONNECT_ATTRS = 1L << 20;
    public static final long CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1L << 21;
    public static final long CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 1L << 22;
    public static final long CLIENT_SESSION_TRACK = 1L << 23;
    public static final long CLIENT_DEPRECATE_EOF = 1L << 24;
    /** MySQL 8 only. */
    public static final long CLIENT_OPTIONAL_RESULTSET_METADATA = 1L << 25;
    /** MySQL 8 only; adds a compression-level byte to the handshake response. */
    public static final long CLIENT_ZSTD_COMPRESSION_ALGORITHM = 1L << 26;
    /** MySQL 8 only. */
    public static final long CLIENT_QUERY_ATTRIBUTES = 1L << 27;
    /** MySQL 8 only. */
    public static final long CLIENT_MULTI_FACTOR_AUTHENTICATION = 1L << 28;
    /** MySQL: CLIENT_CAPABILITY_EXTENSION; MariaDB: the obsolete CLIENT_PROGRESS. */
    public static final long CLIENT_CAPABILITY_EXTENSION = 1L << 29;
    public static final long CLIENT_SSL_VERIFY_SERVER_CERT = 1L << 30;
    public static final long CLIENT_REMEMBER_OPTIONS = 1L << 31;

    /** MariaDB extended: progress reports (ERR packets with code 0xFFFF). */
    public static final long MARIADB_CLIENT_PROGRESS = 1L << 32;
    /** MariaDB extended: COM_MULTI (0xFE). */
    public static final long MARIADB_CLIENT_COM_MULTI = 1L << 33;
    /** MariaDB extended: COM_STMT_BULK_EXECUTE (0xFA). */
    public static final long MARIADB_CLIENT_STMT_BULK_OPERATIONS = 1L << 34;
    /** MariaDB extended (also called EXTENDED_METADATA): column definitions carry a type-info string. */
    public static final long MARIADB_CLIENT_EXTENDED_TYPE_INFO = 1L << 35;
    /** MariaDB extended: the column-count packet is followed by a "metadata follows" byte. */
    public static final long MARIADB_CLIENT_CACHE_METADATA = 1L << 36;
    /** MariaDB 11.5 extended: one result per bulk unit. */
    public static final long MARIADB_CLIENT_BULK_UNIT_RESULTS = 1L << 37;

    /** Mask of the 32 bits MySQL defines (the ones in the first 4 capability bytes). */
    public static final long LOWER_32_MASK = 0xFFFF_FFFFL;

    private static final String[] NAMES = {
        "CLIENT_MYSQL", "FOUND_ROWS", "LONG_FLAG", "CONNECT_WITH_DB", "NO_SCHEMA", "COMPRESS",
        "ODBC", "LOCAL_FILES", "IGNORE_SPACE", "PROTOCOL_41", "INTERACTIVE", "SSL",
        "IGNORE_SIGPIPE", "TRANSACTIONS", "RESERVED", "SECURE_CONNECTION", "MULTI_STATEMENTS",
        "MULTI_RESULTS", "PS_MULTI_RESULTS", "PLUGIN_AUTH", "CONNECT_ATTRS",
        "PLUGIN_AUTH_LENENC_CLIENT_DATA", "CAN_HANDLE_EXPIRED_PASSWORDS", "SESSION_TRACK",
        "DEPRECATE_EOF", "OPTIONAL_RESULTSET_METADATA", "ZSTD_COMPRESSION_ALGORITHM",
        "QUERY_ATTRIBUTES", "MULTI_FACTOR_AUTHENTICATION", "CAPABILITY_EXTENSION",
        "SSL_VERIFY_SERVER_CERT", "REMEMBER_OPTIONS", "MARIADB_CLIENT_PROGRESS",
        "MARIADB_CLIENT_COM_MULTI", "MARIADB_CLIENT_STMT_BULK_OPERATIONS",
        "MARIADB_CLIENT_EXTENDED_TYPE_INFO", "MARIADB_CLIENT_CACHE_METADATA",
        "MARIADB_CLIENT_BULK_UNIT_RESULTS",
    };

    private Capabilities() {}

    /** True when every bit of {@code flag} is set in {@code caps}. */
    public static boolean has(long caps, long flag) {
        return (caps & flag) == flag;
    }

    /** True when the peer is MariaDB, i.e. the extended (upper 32) bits are meaningful. */
    public static boolean isMariaDb(long caps) {
        return (caps & CLIENT_MYSQL) == 0;
    }

    /** The upper 32 bits as they travel on the wire (the MariaDB extended capabilities). */
    public static int extendedBits(long caps) {
        return (int) (caps >>> 32);
    }

    /** Combines the lower MySQL bits and MariaDB's extended bits into one value. */
    public static long combine(long lower32, int extended) {
        return (lower32 & LOWER_32_MASK) | ((extended & LOWER_32_MASK) << 32);
    }

    /** A readable list of the set flags, for logs: {@code PROTOCOL_41|SECURE_CONNECTION|0x4000000000}. */
    public static String describe(long caps) {
        StringJoiner out = new StringJoiner("|");
        long unknown = 0;
        for (int bit = 0; bit < 64; bit++) {
            long flag = 1L << bit;
            if ((caps & flag) == 0) {
                continue;
            }
            if (bit < NAMES.length) {
                out.add(NAMES[bit]);
            } else {
                unknown |= flag;
            }
        }
        if (unknown != 0) {
            out.add("0x" + Long.toHexString(unknown));
        }
        return out.length() == 0 ? "none" : out.toString();
    }
}
