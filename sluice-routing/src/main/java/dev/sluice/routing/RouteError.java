package dev.sluice.routing;

import dev.sluice.protocol.response.ErrorCodes;

/**
 * An error Sluice returns itself, ready for an ERR packet: it says what happened and what to do.
 *
 * @param errorCode MySQL error number
 * @param sqlState  five-character SQLSTATE
 * @param message   text for the client
 */
public record RouteError(int errorCode, String sqlState, String message) {

    /** BEHAVIOUR §1: a write on a read-only endpoint. */
    public static RouteError readOnlyEndpoint(String endpoint) {
        // The server's own code for writes under read_only, so clients treat both alike.
        return new RouteError(ErrorCodes.ER_OPTION_PREVENTS_STATEMENT, ErrorCodes.SQLSTATE_GENERAL,
                "endpoint '" + endpoint + "' is read-only: writes are not accepted here");
    }

    /** BEHAVIOUR §1: a read-only endpoint with no usable replica. */
    public static RouteError noReplica(String endpoint) {
        // No more specific server code fits a refusal made by the proxy.
        return new RouteError(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                "endpoint '" + endpoint + "' has no usable replica: all are down, lagging or drained; retry later");
    }

    /** BEHAVIOUR §5: timeout action {@code error}. */
    public static RouteError consistencyTimeout() {
        return new RouteError(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                "wait replication complete timeout, please retry");
    }
}
