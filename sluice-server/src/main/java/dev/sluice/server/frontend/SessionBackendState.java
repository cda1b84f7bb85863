package dev.sluice.server.frontend;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.backend.LoginRequest;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A client session as its backend connections see it: the login they are opened with, and the
 * {@link SessionState} a connection must be given before it serves the session.
 */
final class SessionBackendState implements BackendState {
    private final SessionLogin sessionLogin;
    private final RoutingSession routing;
    private final Supplier<EndpointView> view;
    private final ByteBufAllocator alloc;
    /** The client's COM_SET_OPTION (multi-statements on or off), or none. */
    private int multiStatementOption = SessionState.NO_OPTION;

    SessionBackendState(SessionLogin sessionLogin, RoutingSession routing, Supplier<EndpointView> view,
            ByteBufAllocator alloc) {
        this.sessionLogin = sessionLogin;
        this.routing = routing;
        this.view = view;
        this.alloc = alloc;
    }

    /** The client's COM_SET_OPTION succeeded ({@link SessionState#NO_OPTION} after a reset). */
    void multiStatementOption(int option) {
        multiStatementOption = option;
    }

    @Override
    public LoginRequest login() {
        ClientIdentity identity = sessionLogin.identity();
        return new LoginRequest(identity.user(), identity.credential(), schema(), identity.capabilities(),
                identity.collation(), identity.maxPacketSize(), identity.connectAttributes());
    }

    @Override
    public ClientCharset loginCharset() {
        return routing.loginCharset();
    }

    @Override
    public Optional<String> schema() {
        return routing.schema().or(sessionLogin::database);
    }

    /** The session's state now. */
    SessionState state() {
        return new SessionState(schema(), routing.loginCharset(), routing.clientCharset(), multiStatementOption,
                routing.replayHistory(), routing.autocommit());
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
        boolean replica = view.get().topology().node(nodeId).map(n -> !n.isPrimary()).orElse(false);
        return state().replay(alloc, replica);
    }
}
