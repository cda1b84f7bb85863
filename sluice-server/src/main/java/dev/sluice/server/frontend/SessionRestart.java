package dev.sluice.server.frontend;

import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.backend.BackendConnection;
import java.util.Optional;

/**
 * A session starting over while its client stays connected: COM_RESET_CONNECTION (the same user)
 * and COM_CHANGE_USER (another). What routing keeps (transaction, pins, temporary tables, the
 * replay history), the status the client was given, a held BEGIN, the previous statement and the
 * prepared statements are all forgotten.
 */
record SessionRestart(SessionLogin login, RoutingSession routing, ClientStatus status,
        DeferredBegin deferredBegin, PreviousStatement previous, TransactionPoolHandBack handBack,
        PreparedStatements statements, SessionBackends backends) {
    /** COM_RESET_CONNECTION: the same user, a fresh session on the same backends. */
    void startOver() {
        statements.clear();
        resetState();
    }

    /**
     * COM_CHANGE_USER accepted: the old backends go, and the session starts over as {@code next}
     * on {@code nextDatabase}, with {@code first} — the connection that accepted the new user.
     */
    void asUser(ClientIdentity next, Optional<String> nextDatabase, BackendConnection first) {
        backends.closeAll(false);
        statements.clear();
        login.changedTo(next, nextDatabase);
        resetState();
        backends.adopt(first);
    }

    private void resetState() {
        status.reset();
        deferredBegin.release();
        routing.reset(ClientCharset.ofCollation(login.identity().collation()));
        previous.reset();
        handBack.reset();
    }
}
