package dev.sluice.server.frontend;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.session.RoutingSession;

/**
 * The transaction pool's hand-back rule (BEHAVIOUR §7): a session gives its backend connections
 * back to the pool at the end of each transaction, so that other clients run on them between
 * this client's transactions, unless something ties the client to those very connections.
 *
 * <p>What ties it: a lock cause routing knows (PREPARE, temporary tables, user variables,
 * LOCK TABLES, GET_LOCK, multi-statements, stored procedures), a protocol one (a binary prepared
 * statement, whose id lives on one connection; LOCAL INFILE; a 16 MB+ packet), or a statement
 * whose answer the next statement reads from the same connection (FOUND_ROWS() after
 * SQL_CALC_FOUND_ROWS or after rows whose count only the server knows, SHOW WARNINGS after
 * warnings).
 */
final class TransactionPoolHandBack {
    /** Statements to complete before a hand-back: this one and the next. */
    private static final int THIS_AND_NEXT = 2;
    /** Statements to complete before a hand-back: the next. */
    private static final int NEXT = 1;

    private final RoutingSession routing;
    private final SessionBackends backends;
    private final PreviousStatement previous;
    private final boolean transactionPool;
    private boolean lockedByProtocol;
    private int holdStatements;

    TransactionPoolHandBack(RoutingSession routing, SessionBackends backends, PreviousStatement previous,
            boolean transactionPool) {
        this.routing = routing;
        this.backends = backends;
        this.previous = previous;
        this.transactionPool = transactionPool;
    }

    /** Whether the session keeps its backend connections until it disconnects. */
    boolean locked() {
        return lockedByProtocol || routing.lockedToBackend() || routing.pinnedToPrimary();
    }

    /** A binary prepared statement, LOCAL INFILE or a 16 MB+ packet ties the session to its connections. */
    void lockByProtocol() {
        lockedByProtocol = true;
    }

    /** Keeps the session's connections through this statement and the next one. */
    void holdThroughNextStatement() {
        holdStatements = THIS_AND_NEXT;
    }

    /** A statement's answer is complete; {@code warnings} is what it left for a SHOW WARNINGS. */
    void statementAnswered(int warnings) {
        if (holdStatements > 0) {
            holdStatements--;
        }
        if (holdStatements == 0 && warnings > 0 && transactionPool) {
            // A SHOW WARNINGS that follows must find them on the connection that has them.
            holdStatements = NEXT;
        }
    }

    /** No statement holds its connections for the next one. */
    boolean nothingHeld() {
        return holdStatements == 0 && !previous.foundRowsOnConnection();
    }

    /**
     * Hands the connections back if the session stands between two transactions. The server's
     * transaction counts, not routing's: under autocommit=0 routing counts every statement as
     * inside a transaction, yet after COMMIT nothing is open on the connection and the next
     * statement may start the next transaction on any connection.
     *
     * @param serverStatus the status of the server's last answer (or Sluice's own)
     * @param betweenCommands no command running or queued, nothing half sent
     */
    void atBoundary(int serverStatus, boolean betweenCommands) {
        if (!routing.transactionOpen() && !ServerStatus.has(serverStatus, ServerStatus.IN_TRANS) && !locked()
                && nothingHeld() && betweenCommands) {
            backends.releaseToPool();
        }
    }

    /** The session starts over (COM_CHANGE_USER, COM_RESET_CONNECTION): nothing is held any more. */
    void reset() {
        holdStatements = 0;
    }
}
