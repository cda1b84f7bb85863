package dev.sluice.protocol;

/**
 * Command bytes: the first byte of every packet a client sends once the connection is in
 * the command phase.
 *
 * @see <a href="https://mariadb.com/kb/en/2-text-protocol/">MariaDB: text protocol</a>
 * @see <a href="https://mariadb.com/kb/en/3-binary-protocol-prepared-statements/">MariaDB: binary protocol</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/my__command_8h.html">MySQL: enum_server_command</a>
 */
public final class Command {
    public static final int COM_SLEEP = 0x00;
    public static final int COM_QUIT = 0x01;
    public static final int COM_INIT_DB = 0x02;
    public static final int COM_QUERY = 0x03;
    public static final int COM_FIELD_LIST = 0x04;
    public static final int COM_CREATE_DB = 0x05;
    public static final int COM_DROP_DB = 0x06;
    public static final int COM_REFRESH = 0x07;
    public static final int COM_SHUTDOWN = 0x08;
    public static final int COM_STATISTICS = 0x09;
    public static final int COM_PROCESS_INFO = 0x0A;
    public static final int COM_CONNECT = 0x0B;
    public static final int COM_PROCESS_KILL = 0x0C;
    public static final int COM_DEBUG = 0x0D;
    public static final int COM_PING = 0x0E;
    public static final int COM_TIME = 0x0F;
    public static final int COM_DELAYED_INSERT = 0x10;
    public static final int COM_CHANGE_USER = 0x11;
    public static final int COM_BINLOG_DUMP = 0x12;
    public static final int COM_TABLE_DUMP = 0x13;
    public static final int COM_CONNECT_OUT = 0x14;
    public static final int COM_REGISTER_SLAVE = 0x15;
    public static final int COM_STMT_PREPARE = 0x16;
    public static final int COM_STMT_EXECUTE = 0x17;
    public static final int COM_STMT_SEND_LONG_DATA = 0x18;
    public static final int COM_STMT_CLOSE = 0x19;
    public static final int COM_STMT_RESET = 0x1A;
    public static final int COM_SET_OPTION = 0x1B;
    public static final int COM_STMT_FETCH = 0x1C;
    public static final int COM_DAEMON = 0x1D;
    public static final int COM_BINLOG_DUMP_GTID = 0x1E;
    public static final int COM_RESET_CONNECTION = 0x1F;
    /** MySQL 8 only. */
    public static final int COM_CLONE = 0x20;
    /** MariaDB only. */
    public static final int COM_STMT_BULK_EXECUTE = 0xFA;
    /** MariaDB only (removed in 10.6, still reserved). */
    public static final int COM_MULTI = 0xFE;

    private static final String[] NAMES = {
        "COM_SLEEP", "COM_QUIT", "COM_INIT_DB", "COM_QUERY", "COM_FIELD_LIST", "COM_CREATE_DB",
        "COM_DROP_DB", "COM_REFRESH", "COM_SHUTDOWN", "COM_STATISTICS", "COM_PROCESS_INFO",
        "COM_CONNECT", "COM_PROCESS_KILL", "COM_DEBUG", "COM_PING", "COM_TIME",
        "COM_DELAYED_INSERT", "COM_CHANGE_USER", "COM_BINLOG_DUMP", "COM_TABLE_DUMP",
        "COM_CONNECT_OUT", "COM_REGISTER_SLAVE", "COM_STMT_PREPARE", "COM_STMT_EXECUTE",
        "COM_STMT_SEND_LONG_DATA", "COM_STMT_CLOSE", "COM_STMT_RESET", "COM_SET_OPTION",
        "COM_STMT_FETCH", "COM_DAEMON", "COM_BINLOG_DUMP_GTID", "COM_RESET_CONNECTION",
        "COM_CLONE",
    };

    private Command() {}

    /** The command's name, or {@code COM_UNKNOWN(0x..)} for a byte no server defines. */
    public static String name(int command) {
        int c = command & 0xFF;
        if (c < NAMES.length) {
            return NAMES[c];
        }
        if (c == COM_STMT_BULK_EXECUTE) {
            return "COM_STMT_BULK_EXECUTE";
        }
        if (c == COM_MULTI) {
            return "COM_MULTI";
        }
        return String.format("COM_UNKNOWN(0x%02x)", c);
    }

    /** True for the commands after which the server sends no response at all. */
    public static boolean expectsNoResponse(int command) {
        int c = command & 0xFF;
        return c == COM_QUIT || c == COM_STMT_CLOSE || c == COM_STMT_SEND_LONG_DATA;
    }
}
