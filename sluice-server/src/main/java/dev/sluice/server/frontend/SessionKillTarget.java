package dev.sluice.server.frontend;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.runtime.ProxyRuntime;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What {@code KILL} through Sluice reaches of a session: its user (only the same user or an
 * administrator may kill it), the session itself, and the statement it is running on a backend.
 * Called from other sessions' event loops, so everything hops to this session's loop.
 */
final class SessionKillTarget implements ProxyRuntime.KillTarget {
    private final ClientSession session;

    SessionKillTarget(ClientSession session) {
        this.session = session;
    }

    @Override
    public String user() {
        return session.identity().user();
    }

    @Override
    public void kill() {
        session.client().eventLoop().execute(session::close);
    }

    @Override
    public CompletableFuture<Optional<long[]>> runningStatement() {
        CompletableFuture<Optional<long[]>> f = new CompletableFuture<>();
        session.client().eventLoop().execute(() -> {
            BackendConnection b = session.isAwaitingResponse() ? session.forwarder().source() : null;
            f.complete(b == null || !b.isUsable() ? Optional.empty()
                    : Optional.of(new long[] {b.nodeId(), b.serverConnectionId()}));
        });
        return f;
    }
}
