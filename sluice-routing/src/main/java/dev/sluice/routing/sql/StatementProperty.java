package dev.sluice.routing.sql;

/** What the classifier noticed inside a statement beyond its kind (BEHAVIOUR §3). */
public enum StatementProperty {
    /** SELECT … FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE, at any depth. */
    LOCKING_READ,
    /** SELECT … INTO @var / OUTFILE / DUMPFILE / local variable. */
    SELECT_INTO,
    /** Assigns a user variable ({@code @a := …}, {@code INTO @a}, {@code SET @a = …}). */
    USER_VARIABLE_WRITE,
    /** Reads a user variable ({@code @a}). */
    USER_VARIABLE_READ,
    /** Reads a system variable ({@code @@x}). Harmless for routing; makes a SET depend on session state. */
    SYSTEM_VARIABLE_READ,
    /**
     * Reads a system variable as the session has it: not {@code @@global.x}, and not one that names
     * the server ({@code @@server_id}, {@code @@hostname}; node-identity-variables.txt). A stored
     * function may have set such a variable on the primary alone.
     */
    SESSION_VARIABLE_READ,
    /** Calls a function that is not built in: a stored or loadable function may write. */
    STORED_FUNCTION,
    /** LAST_INSERT_ID(): only the connection that inserted knows it. */
    LAST_INSERT_ID,
    /**
     * FOUND_ROWS(), ROW_COUNT(), SHOW WARNINGS / ERRORS, @@warning_count, GET DIAGNOSTICS, a read of
     * information_schema.optimizer_trace: ask the node that ran the previous statement.
     */
    PREVIOUS_TARGET,
    /** GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK, RELEASE_ALL_LOCKS. */
    LOCKING_FUNCTION,
    /** NEXTVAL, LASTVAL, SETVAL, NEXT / PREVIOUS VALUE FOR. */
    SEQUENCE,
    /** More than one statement in one COM_QUERY. */
    MULTI_STATEMENT,
    /** Unterminated string, quoted name or comment: the text cannot be trusted. */
    MALFORMED,
    /** About one server's own state (SHOW PROCESSLIST, SHOW MASTER STATUS, …): the primary answers. */
    NODE_SPECIFIC,
    /** After it, the connection stays on the primary until reset (multi-statement, HANDLER, CALL, compound). */
    PINS_SESSION,
    /** {@code SELECT sluice_last_gtid()}: Sluice answers it itself. */
    SLUICE_LAST_GTID,
    /** MariaDB … RETURNING: still a write. */
    RETURNING,
    /**
     * Sets a GLOBAL (or PERSIST) variable: server connections logged in before it keep the old
     * value of its session counterpart, so pooled ones are reset before they serve again.
     */
    SETS_GLOBAL,
    /** CONNECTION_ID(): answers the id of the client's handshake, not a server's thread id. */
    CONNECTION_ID
}
