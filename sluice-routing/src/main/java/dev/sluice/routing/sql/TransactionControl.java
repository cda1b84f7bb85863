package dev.sluice.routing.sql;

/** The transaction statement a text is, if any. Transaction state itself comes from the server's status flags. */
public enum TransactionControl {
    NONE,
    /** BEGIN [WORK], START TRANSACTION [options]. */
    BEGIN,
    COMMIT,
    /** COMMIT AND CHAIN: ends one transaction and opens the next. */
    COMMIT_AND_CHAIN,
    ROLLBACK,
    /** ROLLBACK AND CHAIN. */
    ROLLBACK_AND_CHAIN,
    SAVEPOINT,
    /** ROLLBACK TO [SAVEPOINT] x: the transaction goes on. */
    ROLLBACK_TO_SAVEPOINT,
    RELEASE_SAVEPOINT,
    XA_START,
    XA_END,
    XA_PREPARE,
    XA_COMMIT,
    XA_ROLLBACK,
    XA_RECOVER;

    /** True for statements after which no transaction is open (the server's flags confirm it). */
    public boolean ends() {
        return this == COMMIT || this == ROLLBACK || this == XA_COMMIT || this == XA_ROLLBACK;
    }
}
