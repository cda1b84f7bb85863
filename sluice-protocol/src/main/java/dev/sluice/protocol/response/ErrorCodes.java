package dev.sluice.protocol.response;

/**
 * Server error numbers the proxy sends itself, with the SQLSTATE servers pair them with. Every
 * module takes them from here: each number is written once.
 *
 * <p>Only server numbers: 2000-2999 belong to the client libraries, which report them for what they
 * see themselves (2013, the connection lost mid-query). A server never sends one, and MariaDB
 * Connector/C (libmariadb, which sysbench, the mariadb client and many drivers use) reads an ERR
 * packet carrying one of its own numbers as a malformed packet: the client gets 2027 "Received
 * malformed packet", never the message. A lost backend is told with {@link #ER_UNKNOWN_ERROR} and
 * a message that says what became of the statement.
 *
 * @see <a href="https://mariadb.com/kb/en/mariadb-error-codes/">MariaDB: error codes</a>
 */
public final class ErrorCodes {
    /** 08004: too many connections. */
    public static final int ER_CON_COUNT_ERROR = 1040;
    /** 08S01: bad handshake. */
    public static final int ER_HANDSHAKE_ERROR = 1043;
    /** 28000. */
    public static final int ER_ACCESS_DENIED_ERROR = 1045;
    /** 08S01: unknown command. */
    public static final int ER_UNKNOWN_COM_ERROR = 1047;
    /** 42000: unknown database. */
    public static final int ER_BAD_DB_ERROR = 1049;
    /** HY000: the thread id a KILL names does not exist. */
    public static final int ER_NO_SUCH_THREAD = 1094;
    /** HY000: a KILL of another account's thread without the privilege to. */
    public static final int ER_KILL_DENIED_ERROR = 1095;
    /** HY000: no more specific code fits. */
    public static final int ER_UNKNOWN_ERROR = 1105;
    /** HY000: too many failed logins from a host (and account). */
    public static final int ER_HOST_IS_BLOCKED = 1129;
    /** HY000: the host may not connect at all. */
    public static final int ER_HOST_NOT_PRIVILEGED = 1130;
    /** 08S01: packet bigger than max_allowed_packet. */
    public static final int ER_NET_PACKET_TOO_LARGE = 1153;
    /** 08S01. */
    public static final int ER_NET_PACKETS_OUT_OF_ORDER = 1156;
    /** 08S01: read timeout. */
    public static final int ER_NET_READ_INTERRUPTED = 1159;
    /** 42000: a form of a statement that is not supported (here: one Sluice cannot carry out). */
    public static final int ER_NOT_SUPPORTED_YET = 1235;
    /** HY000: a prepared statement id the server does not know. */
    public static final int ER_UNKNOWN_STMT_HANDLER = 1243;
    /** 08004: the client cannot do the server's auth plugin. */
    public static final int ER_NOT_SUPPORTED_AUTH_MODE = 1251;
    /** HY000: e.g. --read-only. */
    public static final int ER_OPTION_PREVENTS_STATEMENT = 1290;
    /** 70100. */
    public static final int ER_QUERY_INTERRUPTED = 1317;
    /** HY000: COM_STMT_FETCH on a statement without an open cursor. */
    public static final int ER_STMT_HAS_NO_OPEN_CURSOR = 1421;
    /** 42000: max_prepared_stmt_count reached. */
    public static final int ER_MAX_PREPARED_STMT_COUNT_REACHED = 1461;
    /** HY000: a binary-protocol command too short for its fixed part. */
    public static final int ER_MALFORMED_PACKET = 1835;

    public static final String SQLSTATE_GENERAL = "HY000";
    public static final String SQLSTATE_COMMUNICATION = "08S01";
    public static final String SQLSTATE_ACCESS_DENIED = "28000";

    private ErrorCodes() {}
}
