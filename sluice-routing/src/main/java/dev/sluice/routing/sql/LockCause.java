package dev.sluice.routing.sql;

/**
 * BEHAVIOUR §7: things a pooled (transaction-mode) backend connection cannot carry from one client to
 * another. Once a client does one of them it keeps its backend connection until it disconnects.
 * (The 16 MB packet cause is a protocol matter and is detected by the server.)
 */
public enum LockCause {
    PREPARE,
    TEMPORARY_TABLE,
    USER_VARIABLE,
    LOCK_TABLES,
    GET_LOCK,
    MULTI_STATEMENT,
    STORED_PROCEDURE,
    /**
     * A call of a function that is not built in: its body may set session variables
     * ({@code SET @@sort_buffer_size = i}) that Sluice does not see, so no state tag would describe
     * the connection it ran on, and the client reads them back there.
     */
    STORED_FUNCTION
}
