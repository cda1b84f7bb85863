package dev.sluice.server.frontend;

import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.backend.LoginRequest;
import java.util.List;
import java.util.Optional;

/** What a session's backend connections must carry: its login, and the state it built up. */
interface BackendState {
    LoginRequest login();

    /** The session's state in one comparable string (schema, SET history, options). */
    String stateTag();

    /** The tag of a connection just reset by COM_RESET_CONNECTION while on {@code schema}. */
    String freshTag(Optional<String> schema);

    /** The character set of the session's login: a connection reset by COM_RESET_CONNECTION is back in it. */
    ClientCharset loginCharset();

    /** The session's current schema. */
    Optional<String> schema();

    /** The commands that give a fresh connection to {@code nodeId} the session's state. */
    List<ReplayCommand> replay(int nodeId);
}
