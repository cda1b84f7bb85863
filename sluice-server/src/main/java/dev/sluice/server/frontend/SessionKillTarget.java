package dev.sluice.server.frontend;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.EventLoop;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * What {@code KILL} through Sluice reaches of a session: its user (only the same user or an
 * administrator may kill it), the session itself, and the statement it is running on a backend.
 * Called from other sessions' event loops, so everything hops to this session's loop.
 *
 * @param close ends the session
 * @param commandRunning whether a command of the client is running (its answer not yet complete)
 * @param forwarder whose source is the backend running that command
 */
record SessionKillTarget(SessionLogin login, EventLoop loop, Runnable close, BooleanSupplier commandRunning,
        ClientForwarder forwarder) implements ProxyRuntime.KillTarget {
    @Override
    public String user() {
        return login.identity().user();
    }

    @Override
    public void kill() {
        loop.execute(close);
    }

    @Override
    public CompletableFuture<Optional<long[]>> runningStatement() {
        CompletableFuture<Optional<long[]>> f = new CompletableFuture<>();
        loop.execute(() -> {
            BackendConnection b = commandRunning.getAsBoolean() ? forwarder.source() : null;
            f.complete(b == null || !b.isUsable() ? Optional.empty()
                    : Optional.of(new long[] {b.nodeId(), b.serverConnectionId()}));
        });
        return f;
    }
}
