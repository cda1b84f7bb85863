package dev.sluice.server.frontend;

import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.backend.LoginRequest;
import java.util.List;
import java.util.Optional;

/**
 * A client session as its backend connections see it: the login they are opened with, and the
 * {@link SessionState} a connection must be given before it serves the session.
 */
final class SessionBackendState implements BackendState {
    private final ClientSession session;

    SessionBackendState(ClientSession session) {
        this.session = session;
    }

    @Override
    public LoginRequest login() {
        ClientIdentity identity = session.identity();
        return new LoginRequest(identity.user(), identity.credential(), schema(), identity.capabilities(),
                identity.collation(), identity.maxPacketSize(), identity.connectAttributes());
    }

    @Override
    public ClientCharset loginCharset() {
        return session.routing().loginCharset();
    }

    @Override
    public Optional<String> schema() {
        return session.routing().schema().or(session::database);
    }

    /** The session's state now. */
    SessionState state() {
        return new SessionState(schema(), session.routing().loginCharset(), session.routing().clientCharset(),
                session.commands().multiStatementOption(), session.routing().replayHistory(),
                session.routing().autocommit());
    }

    @Override
    public String stateTag() {
        return state().tag();
    }

    @Override
    public String freshTag(Optional<String> schema) {
        return SessionState.freshTag(schema);
    }

    @Override
    public List<ReplayCommand> replay(int nodeId) {
        boolean replica = session.endpoint().view().topology().node(nodeId).map(n -> !n.isPrimary()).orElse(false);
        return state().replay(session.client().alloc(), replica);
    }
}
