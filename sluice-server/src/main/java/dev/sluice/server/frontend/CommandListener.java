package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseListener;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;

/**
 * What a command wants to learn from its own response besides the bytes the client gets: packets
 * to inspect in place (PREPARE_OK, OK with session tracking) and the end.
 */
interface CommandListener extends ResponseListener {
    CommandListener NONE = new CommandListener() { };

    default void onComplete(BackendConnection backend, ResponseTracker tracker) {
    }

    default void onFailure(BackendConnection backend, Throwable cause) {
    }
}
