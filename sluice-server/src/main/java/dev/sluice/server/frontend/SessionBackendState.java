package dev.sluice.server.frontend;

import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.SessionCommand;
import dev.sluice.server.backend.LoginRequest;
import java.util.List;
import java.util.Optional;

/**
 * A client session as its backend connections see it: the login they are opened with, and the
 * state (schema, SET history, COM_SET_OPTION) a connection must be given before it serves the
 * session. The state tag lets a pool hand over a connection that already carries it as it is.
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

    @Override
    public String stateTag() {
        return tag(schema(), session.routing().replayHistory(), session.commands().multiStatementOption());
    }

    @Override
    public String freshTag(Optional<String> schema) {
        return tag(schema, List.of(), -1);
    }

    @Override
    public List<ReplayCommand> replay(int nodeId) {
        return session.commands().replayCommands(nodeId);
    }

    private static String tag(Optional<String> schema, List<SessionCommand> history, int option) {
        StringBuilder tag = new StringBuilder("db=").append(schema.orElse("")).append("\u0000opt=").append(option);
        for (SessionCommand command : history) {
            tag.append('\u0000').append(command.charset().name()).append(':').append(command.sql());
        }
        return tag.toString();
    }
}
