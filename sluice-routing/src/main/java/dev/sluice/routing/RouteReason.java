package dev.sluice.routing;

/**
 * Why a statement went where it went, for metrics ({@code sluice_route_total{reason=…}}) and for
 * explaining a routing surprise. {@link #metricName()} is the stable label value.
 */
public enum RouteReason {
    /** A write, DDL, administration, locking read, SELECT … INTO, or a sequence. */
    WRITE("write"),
    /** BEGIN, COMMIT, ROLLBACK, SAVEPOINT, XA. */
    TRANSACTION_CONTROL("transaction-control"),
    /** Inside a transaction that is not (or no longer) split. */
    IN_TRANSACTION("in-transaction"),
    /** A read before the first write of a split transaction (BEHAVIOUR §6). */
    TRANSACTION_SPLIT("transaction-split"),
    /** FORCE_MASTER or FORCE_SLAVE. */
    HINT("hint"),
    /** The session is pinned to the primary (multi-statement, HANDLER, CALL). */
    PINNED("pinned"),
    /** LOCK TABLES is in force. */
    LOCKED_TABLES("locked-tables"),
    /** Touches a temporary table of the session. */
    TEMPORARY_TABLE("temporary-table"),
    /** {@code SET @v = expr}: the primary computes the values, which every other backend then gets as literals. */
    USER_VARIABLES("user-variables"),
    /** Needs this connection's own state on the primary: user variables, LAST_INSERT_ID, user locks. */
    SESSION_DEPENDENT("session-dependent"),
    /** Calls a function that is not built in. */
    STORED_FUNCTION("stored-function"),
    /** About one server's own state (SHOW PROCESSLIST, …). */
    NODE_SPECIFIC("node-specific"),
    /** SHOW WARNINGS, FOUND_ROWS(), … follow the previous statement. */
    PREVIOUS_TARGET("previous-target"),
    /** Changes session state: every backend. */
    SESSION_COMMAND("session-command"),
    /** A session command through the prepared-statement protocol: primary only (BEHAVIOUR §3). */
    PREPARED_SESSION_COMMAND("prepared-session-command"),
    /** An ordinary read, balanced by weight. */
    READ("read"),
    /** No replica can take the read: the primary does (BEHAVIOUR §2, §4). */
    FALLBACK_NO_REPLICA("fallback-no-replica"),
    /**
     * Replicas failed the read under it again and again (nodes flapping in and out of the monitor's
     * view): its last try runs on the primary (BEHAVIOUR §4).
     */
    FALLBACK_REPLICAS_FAILED("fallback-replicas-failed"),
    /** The chosen replica must first reach a GTID position. */
    CONSISTENCY_WAIT("consistency-wait"),
    /** The global level needs the primary's current position first. */
    CONSISTENCY_PRIMARY_POSITION("consistency-primary-position"),
    /** No replica had the position and no wait is allowed: the timeout action applies. */
    CONSISTENCY_TIMEOUT("consistency-timeout"),
    /**
     * Session consistency, but an answer of the primary that may have held one of the session's
     * GTIDs could not be read: only the primary surely has the session's writes (BEHAVIOUR §5).
     */
    CONSISTENCY_POSITION_UNKNOWN("consistency-position-unknown"),
    /** Malformed, empty or unrecognised text. */
    UNPARSED("unparsed"),
    /** Read-only endpoint: the connection's replica. */
    CONNECTION_REPLICA("connection-replica"),
    /** Read-only endpoint: the connection's replica left, another was chosen. */
    CONNECTION_REPLICA_MOVED("connection-replica-moved"),
    /** Read-only endpoint: a write was refused. */
    READ_ONLY_ENDPOINT("read-only-endpoint"),
    /** Read-only endpoint: no replica can be used. */
    NO_REPLICA("no-replica"),
    /** Answered by Sluice itself. */
    LOCAL("local");

    private final String metricName;

    RouteReason(String metricName) {
        this.metricName = metricName;
    }

    public String metricName() {
        return metricName;
    }
}
