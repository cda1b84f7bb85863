package dev.sluice.routing.session;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.sql.AutocommitChange;
import dev.sluice.routing.sql.IsolationChange;
import dev.sluice.routing.sql.IsolationLevel;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.TransactionControl;
import dev.sluice.routing.sql.TransactionOption;

/**
 * Whether the client connection is inside a transaction, and of which kind.
 *
 * <p>The server's status flags are the truth (ARCHITECTURE: "not from guessing at SQL text"): every
 * response of the node holding the transaction resets the in-transaction and autocommit bits. What
 * the classifier saw is applied when the statement is sent, only in the safe direction (BEGIN and
 * {@code autocommit=0} count at once, so nothing can slip to a replica before the answer arrives;
 * ends wait for the flags).
 */
final class TransactionState {

    private boolean inTransaction;
    private boolean autocommit = true;
    private boolean xaActive;
    private boolean tablesLocked;
    private boolean wrote;
    private boolean snapshot;
    private boolean moreResults;
    private IsolationLevel sessionIsolation = IsolationLevel.SERVER_DEFAULT;
    private IsolationLevel nextIsolation;

    /** The statement is being sent; {@code toPrimary} tells where it goes. */
    void onSent(Statement statement, boolean toPrimary) {
        TransactionControl control = statement.transactionControl();
        boolean wasIn = inTransaction();
        switch (control) {
            case BEGIN -> {
                inTransaction = true;
                wrote = false;
                tablesLocked = false;
                snapshot = statement.hasTransactionOption(TransactionOption.WITH_CONSISTENT_SNAPSHOT);
            }
            case COMMIT_AND_CHAIN, ROLLBACK_AND_CHAIN -> wrote = false;
            case XA_START -> xaActive = true;
            default -> {
                // ends are confirmed by the flags of the answer
            }
        }
        if (statement.autocommitChange() == AutocommitChange.OFF
                || statement.autocommitChange() == AutocommitChange.UNKNOWN) {
            autocommit = false;
        }
        switch (statement.kind()) {
            case LOCK_TABLES -> tablesLocked = true;
            case UNLOCK_TABLES -> tablesLocked = false;
            default -> {
                // no table locks involved
            }
        }
        if (wasIn && toPrimary && control == TransactionControl.NONE && !statement.isSessionCommand()) {
            wrote = true;
        }
    }

    /** The statement succeeded: apply what it changed for good. */
    void onSucceeded(Statement statement) {
        TransactionControl control = statement.transactionControl();
        if (control == TransactionControl.XA_COMMIT || control == TransactionControl.XA_ROLLBACK) {
            xaActive = false;
        }
        if (statement.autocommitChange() == AutocommitChange.ON) {
            autocommit = true;
        }
        statement.isolationChange().ifPresent(this::apply);
    }

    private void apply(IsolationChange change) {
        if (change.sessionScope()) {
            sessionIsolation = change.level();
            nextIsolation = null;
        } else {
            nextIsolation = change.level();
        }
    }

    /** Status flags of an OK or EOF from the node holding the transaction. */
    void onStatusFlags(int flags) {
        // The transaction that ended is the server's (the IN_TRANS flag), not the routing view that
        // counts every statement under autocommit=0 as inside one: with autocommit off, COMMIT ends
        // a transaction too, and the next one starts afresh (split again, its own isolation level).
        boolean wasOpen = inTransaction;
        inTransaction = (flags & ServerStatus.IN_TRANS) != 0;
        autocommit = (flags & ServerStatus.AUTOCOMMIT) != 0;
        moreResults = (flags & ServerStatus.MORE_RESULTS_EXISTS) != 0;
        if (wasOpen && !inTransaction) {
            wrote = false;
            snapshot = false;
            nextIsolation = null;
        }
    }

    /** The server's own report of the session isolation level (session tracking or a query). */
    void setSessionIsolation(IsolationLevel level) {
        sessionIsolation = level;
    }

    /** Explicit, implicit (autocommit off) or XA. */
    boolean inTransaction() {
        return inTransaction || !autocommit || xaActive;
    }

    boolean autocommit() {
        return autocommit;
    }

    /** Open on the server: BEGIN sent and not yet ended, the server's IN_TRANS flag, or XA. */
    boolean open() {
        return inTransaction || xaActive;
    }

    boolean tablesLocked() {
        return tablesLocked;
    }

    /** Something ran on the primary in the current transaction: splitting is over for it. */
    boolean wrote() {
        return wrote;
    }

    /** Opened WITH CONSISTENT SNAPSHOT: its snapshot lives on the primary. */
    boolean snapshot() {
        return snapshot;
    }

    boolean xaActive() {
        return xaActive;
    }

    /** The level the current (or next) transaction runs at. */
    IsolationLevel isolation() {
        return nextIsolation != null ? nextIsolation : sessionIsolation;
    }

    boolean atBoundary() {
        return !inTransaction() && !tablesLocked && !moreResults;
    }

    void reset() {
        inTransaction = false;
        autocommit = true;
        xaActive = false;
        tablesLocked = false;
        wrote = false;
        snapshot = false;
        moreResults = false;
        sessionIsolation = IsolationLevel.SERVER_DEFAULT;
        nextIsolation = null;
    }
}
