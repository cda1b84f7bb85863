package dev.sluice.protocol.stream;

/**
 * The shape of the answer a command gets, which is all {@link ResponseTracker} needs to find
 * where that answer ends.
 */
public enum ResponseKind {
    /** COM_QUERY and COM_STMT_EXECUTE: OK, ERR, LOCAL INFILE request or result sets, chained by MORE_RESULTS_EXISTS. */
    RESULT,
    /** COM_STMT_EXECUTE that asked for a cursor: the rows are only sent on COM_STMT_FETCH. */
    RESULT_WITH_CURSOR,
    /** COM_STMT_PREPARE: PREPARE_OK then parameter and column definitions, or ERR. */
    PREPARE,
    /** COM_STMT_FETCH: rows ended by EOF, or ERR. */
    FETCH,
    /** COM_FIELD_LIST: column definitions ended by EOF, or ERR. */
    FIELD_LIST,
    /** COM_STATISTICS: one bare string packet. */
    STATISTICS,
    /** PING, INIT_DB, RESET_CONNECTION, STMT_RESET, PROCESS_KILL, SET_OPTION...: one OK, EOF or ERR packet. */
    SINGLE
}
