package dev.sluice.routing.sql;

/** Options of START TRANSACTION. */
public enum TransactionOption {
    READ_ONLY,
    READ_WRITE,
    /** The snapshot is taken at START, on the node that runs it: such a transaction is never split. */
    WITH_CONSISTENT_SNAPSHOT
}
