package dev.sluice.server.consistency;

import dev.sluice.routing.ConsistencyRequirement;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.policy.TimeoutAction;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The reads of one session that must be at least as fresh as a GTID position (BEHAVIOUR §5):
 * wait on the chosen replica with the server's own wait ({@link GtidWait}), bounded by the
 * consistency timeout, then run the read there, or apply the timeout action. Global reads first
 * get the primary's position from the proxy's shared, batched source
 * ({@link PrimaryPositionSource}).
 *
 * @param <C> the session's command in flight, handed back to it to be sent, routed or refused
 */
public final class ConsistentReads<C> {
    /** Extra time Sluice grants the server's own wait before it stops trusting that replica. */
    private static final long WAIT_GRACE_MS = 1000;

    /** What a read waiting for freshness needs from the session it runs in. */
    public interface Session<C> {
        /** The session's event loop: every outcome is handled there. */
        EventLoop loop();

        boolean closed();

        /** The command waits for its freshness before it is sent. */
        void hold(C command);

        /** Runs {@code action} with an open connection to {@code node}, opening it if needed. */
        void withBackend(NodeRef node, C command, Consumer<BackendConnection> action);

        /** A replica that did not answer its own bounded wait is hung: the session leaves it. */
        void leave(BackendConnection hung);

        /** The replica has the position: the read runs there. */
        void runOn(C command, NodeRef replica);

        /** The primary's position is known: the read is routed with it. */
        void routeAt(C command, GtidPosition primaryPosition);

        /** No replica was fresh in time and the timeout action is to read the primary. */
        void readPrimary(C command);

        /** No replica was fresh in time and the timeout action is an error: the command ends with it. */
        void refuse(C command);

        /** The session closed while the command waited: its bytes are dropped. */
        void drop(C command);
    }

    private final Session<C> session;
    private final SluiceMetrics metrics;
    private final String endpoint;
    private final Supplier<CompletableFuture<GtidPosition>> primaryPosition;

    public ConsistentReads(Session<C> session, SluiceMetrics metrics, String endpoint,
            Supplier<CompletableFuture<GtidPosition>> primaryPosition) {
        this.session = session;
        this.metrics = metrics;
        this.endpoint = endpoint;
        this.primaryPosition = primaryPosition;
    }

    /** Waits until {@code replica} has applied what {@code wait} asks, then runs the read there. */
    public void waitThenRun(C command, ConsistencyRequirement.WaitFor wait, NodeRef replica) {
        session.hold(command);
        long started = System.nanoTime();
        session.withBackend(replica, command, b -> {
            boolean[] settled = new boolean[1];
            var guard = session.loop().schedule(() -> {
                if (!settled[0]) {
                    settled[0] = true;
                    session.leave(b);
                    timedOut(command, wait.onTimeout(), started);
                }
            }, wait.timeout().toMillis() + WAIT_GRACE_MS, TimeUnit.MILLISECONDS);
            InternalQuery.run(b, GtidWait.query(wait.position(), wait.timeout(), b.serverVersion()))
                    .whenComplete((result, error) -> session.loop().execute(() -> {
                        if (settled[0]) {
                            return;
                        }
                        settled[0] = true;
                        guard.cancel(false);
                        if (session.closed()) {
                            session.drop(command);
                        } else if (error == null && GtidWait.reached(result)) {
                            metrics.consistencyWait(endpoint, SluiceMetrics.WAIT_OK, System.nanoTime() - started);
                            session.runOn(command, replica);
                        } else {
                            timedOut(command, wait.onTimeout(), started);
                        }
                    }));
        });
    }

    /** Asks for the primary's current position, then routes the read with it. */
    public void atPrimaryPosition(C command, TimeoutAction onTimeout) {
        session.hold(command);
        long started = System.nanoTime();
        primaryPosition.get().whenComplete((position, error) -> session.loop().execute(() -> {
            if (session.closed()) {
                session.drop(command);
            } else if (error != null) {
                timedOut(command, onTimeout, started);
            } else {
                session.routeAt(command, position);
            }
        }));
    }

    private void timedOut(C command, TimeoutAction action, long started) {
        long waited = System.nanoTime() - started;
        if (action == TimeoutAction.PRIMARY) {
            metrics.consistencyWait(endpoint, SluiceMetrics.WAIT_TIMEOUT_PRIMARY, waited);
            session.readPrimary(command);
        } else {
            metrics.consistencyWait(endpoint, SluiceMetrics.WAIT_TIMEOUT_ERROR, waited);
            session.refuse(command);
        }
    }
}
