package dev.sluice.server.frontend;

import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.SessionEnd;
import dev.sluice.server.runtime.SessionStanding;
import io.netty.channel.EventLoop;
import java.util.concurrent.CompletableFuture;

/**
 * What the endpoint, a switchover, a failover or Sluice's stop may ask of one session. They ask
 * from other threads; each answer is worked out on the session's own loop, where all of its state
 * lives, and a session that has closed meanwhile is left alone.
 */
final class EndpointHandle implements EndpointRuntime.SessionHandle {
    private final long connectionId;
    private final EventLoop loop;
    private final ClientInbox inbox;
    private final NodeDepartures departures;
    private final SwitchoverHold switchover;
    private final BackendFailures failures;
    private final SessionShutdown shutdown;

    EndpointHandle(long connectionId, EventLoop loop, ClientInbox inbox, NodeDepartures departures,
            SwitchoverHold switchover, BackendFailures failures, SessionShutdown shutdown) {
        this.connectionId = connectionId;
        this.loop = loop;
        this.inbox = inbox;
        this.departures = departures;
        this.switchover = switchover;
        this.failures = failures;
        this.shutdown = shutdown;
    }

    @Override
    public void leaveRetiredNodesSoon() {
        loop.execute(() -> {
            if (inbox.phase() == SessionPhase.IDLE && inbox.isEmpty()) {
                departures.leaveRetiredNodes();
            }
        });
    }

    /** The monitor found a node unreachable: see {@link NodeDepartures}. */
    @Override
    public void leaveUnreachableReplica(int nodeId) {
        unlessClosed(() -> departures.leaveIfUnreachable(nodeId));
    }

    /** Where the session stands toward the primary (BEHAVIOUR §10). */
    @Override
    public CompletableFuture<SessionStanding> standing(int primaryId) {
        CompletableFuture<SessionStanding> out = new CompletableFuture<>();
        loop.execute(() -> out.complete(closed()
                ? SessionStanding.gone(connectionId)
                : switchover.standing(primaryId)));
        return out;
    }

    /** The primary moved off {@code nodeId}: see {@link SwitchoverHold#leaveFormerPrimary}. */
    @Override
    public CompletableFuture<Void> leaveFormerPrimary(int nodeId) {
        return unlessClosed(() -> switchover.leaveFormerPrimary(nodeId));
    }

    /** The primary {@code nodeId} failed: see {@link BackendFailures#primaryFailed}. */
    @Override
    public CompletableFuture<Void> abandonFailedPrimary(int nodeId) {
        return unlessClosed(() -> failures.primaryFailed(nodeId));
    }

    /** Sluice is stopping: see {@link SessionShutdown}. */
    @Override
    public CompletableFuture<SessionEnd> closeAtBoundary() {
        loop.execute(() -> {
            if (!shutdown.asked()) {
                inbox.watchIdle(shutdown::atIdle);
                shutdown.ask();
            }
        });
        return shutdown.ended();
    }

    @Override
    public void cut() {
        loop.execute(shutdown::cut);
    }

    /** Runs {@code step} on the session's loop if the session is still open; completes once it ran or was skipped. */
    private CompletableFuture<Void> unlessClosed(Runnable step) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.execute(() -> {
            if (!closed()) {
                step.run();
            }
            done.complete(null);
        });
        return done;
    }

    private boolean closed() {
        return inbox.phase() == SessionPhase.CLOSED;
    }
}
