package dev.sluice.protocol;

import java.util.StringJoiner;

/**
 * Server status flags, carried by OK and EOF packets. The proxy reads them to learn the
 * session's transaction state ({@link #IN_TRANS}, {@link #AUTOCOMMIT}) and where a response
 * ends ({@link #MORE_RESULTS_EXISTS}) instead of guessing from SQL text.
 *
 * @see <a href="https://mariadb.com/kb/en/ok_packet/#server-status-flag">MariaDB: OK packet, server status flag</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/mysql__com_8h.html">MySQL: SERVER_STATUS_* in mysql_com.h</a>
 */
public final class ServerStatus {
    public static final int IN_TRANS = 1;
    public static final int AUTOCOMMIT = 1 << 1;
    /** Bit 2 is unused by both servers. */
    public static final int MORE_RESULTS_EXISTS = 1 << 3;
    public static final int QUERY_NO_GOOD_INDEX_USED = 1 << 4;
    public static final int QUERY_NO_INDEX_USED = 1 << 5;
    public static final int CURSOR_EXISTS = 1 << 6;
    public static final int LAST_ROW_SENT = 1 << 7;
    public static final int DB_DROPPED = 1 << 8;
    public static final int NO_BACKSLASH_ESCAPES = 1 << 9;
    public static final int METADATA_CHANGED = 1 << 10;
    public static final int QUERY_WAS_SLOW = 1 << 11;
    public static final int PS_OUT_PARAMS = 1 << 12;
    public static final int IN_TRANS_READONLY = 1 << 13;
    /** The OK packet carries session state changes (with CLIENT_SESSION_TRACK). */
    public static final int SESSION_STATE_CHANGED = 1 << 14;
    /** MariaDB only: sql_mode has ANSI_QUOTES. */
    public static final int ANSI_QUOTES = 1 << 15;

    private static final String[] NAMES = {
        "IN_TRANS", "AUTOCOMMIT", "BIT2", "MORE_RESULTS_EXISTS", "QUERY_NO_GOOD_INDEX_USED",
        "QUERY_NO_INDEX_USED", "CURSOR_EXISTS", "LAST_ROW_SENT", "DB_DROPPED",
        "NO_BACKSLASH_ESCAPES", "METADATA_CHANGED", "QUERY_WAS_SLOW", "PS_OUT_PARAMS",
        "IN_TRANS_READONLY", "SESSION_STATE_CHANGED", "ANSI_QUOTES",
    };

    private ServerStatus() {}

    public static boolean has(int status, int flag) {
        return (status & flag) == flag;
    }

    /** A readable list of the set flags, for logs. */
    public static String describe(int status) {
        StringJoiner out = new StringJoiner("|");
        for (int bit = 0; bit < NAMES.length; bit++) {
            if ((status & (1 << bit)) != 0) {
                out.add(NAMES[bit]);
            }
        }
        int unknown = status & ~0xFFFF;
        if (unknown != 0) {
            out.add("0x" + Integer.toHexString(unknown));
        }
        return out.length() == 0 ? "none" : out.toString();
    }
}
