package dev.sluice.routing;

/**
 * An error Sluice returns itself, ready for an ERR packet: it says what happened and what to do.
 *
 * @param errorCode MySQL error number
 * @param sqlState  five-character SQLSTATE
 * @param message   text for the client
 */
public record RouteError(int errorCode, String sqlState, String message) {

    /** {@code ER_OPTION_PREVENTS_STATEMENT}: the server's own code for writes under read_only. */
    public static final int ER_OPTION_PREVENTS_STATEMENT = 1290;
    /** {@code ER_UNKNOWN_ERROR}: no more specific server code fits a proxy-side refusal. */
    public static final int ER_UNKNOWN_ERROR = 1105;
    /** General error SQLSTATE. */
    public static final String GENERAL_ERROR = "HY000";

    /** BEHAVIOUR §1: a write on a read-only endpoint. */
    public static RouteError readOnlyEndpoint(String endpoint) {
        return new RouteError(ER_OPTION_PREVENTS_STATEMENT, GENERAL_ERROR,
                "endpoint '" + endpoint + "' is read-only: writes are not accepted here");
    }

    /** BEHAVIOUR §1: a read-only endpoint with no usable replica. */
    public static RouteError noReplica(String endpoint) {
        return new RouteError(ER_UNKNOWN_ERROR, GENERAL_ERROR,
                "endpoint '" + endpoint + "' has no usable replica: all are down, lagging or drained; retry later");
    }

    /** BEHAVIOUR §5: timeout action {@code error}. */
    public static RouteError consistencyTimeout() {
        return new RouteError(ER_UNKNOWN_ERROR, GENERAL_ERROR, "wait replication complete timeout, please retry");
    }
}
