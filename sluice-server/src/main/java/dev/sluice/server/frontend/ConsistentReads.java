package dev.sluice.server.frontend;

import dev.sluice.routing.ConsistencyRequirement;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteError;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.routing.policy.TimeoutAction;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.consistency.GtidWait;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.TimeUnit;

/**
 * The reads of one session that must be at least as fresh as a GTID position (SPEC §5): wait on
 * the chosen replica with the server's own wait, bounded by the consistency timeout, then run the
 * read there — or apply the timeout action. Global reads first get the primary's position from
 * the proxy's shared, batched source.
 */
final class ConsistentReads {
    /** Extra time Sluice grants the server's own wait before it stops trusting that replica. */
    private static final long WAIT_GRACE_MS = 1000;

    private final ClientSession session;

    ConsistentReads(ClientSession session) {
        this.session = session;
    }

    void waitThenRun(RoutedCommand c, ConsistencyRequirement.WaitFor wait, NodeRef replica) {
        ByteBuf frame = c.frame();
        session.holdCommand();
        long started = System.nanoTime();
        session.withBackend(replica, frame, b -> {
            boolean[] settled = new boolean[1];
            var guard = session.client().eventLoop().schedule(() -> {
                if (!settled[0]) {
                    settled[0] = true;
                    // The replica did not even answer its own bounded wait: it is hung; leave it.
                    session.backends().remove(b);
                    timedOut(c, wait.onTimeout(), started);
                }
            }, wait.timeout().toMillis() + WAIT_GRACE_MS, TimeUnit.MILLISECONDS);
            InternalQuery.run(b, GtidWait.query(wait.position(), wait.timeout(), b.serverVersion()))
                    .whenComplete((result, error) -> session.client().eventLoop().execute(() -> {
                        if (settled[0]) {
                            return;
                        }
                        settled[0] = true;
                        guard.cancel(false);
                        if (session.isClosed()) {
                            frame.release();
                            return;
                        }
                        if (error == null && GtidWait.reached(result)) {
                            session.proxy().metrics().consistencyWait(session.endpoint().name(), "ok",
                                    System.nanoTime() - started);
                            session.executor().sendToReplica(c, replica);
                        } else {
                            timedOut(c, wait.onTimeout(), started);
                        }
                    }));
        });
    }

    void atPrimaryPosition(RoutedCommand c, RouteDecision.NeedPrimaryPosition need) {
        session.holdCommand();
        long started = System.nanoTime();
        session.proxy().primaryPositions().next().whenComplete((position, error) ->
                session.client().eventLoop().execute(() -> {
                    if (session.isClosed()) {
                        c.release();
                        return;
                    }
                    if (error != null) {
                        timedOut(c, need.onTimeout(), started);
                        return;
                    }
                    RouteDecision next = Router.routeAtPrimaryPosition(c.statement(), session.routing(),
                            session.endpoint().view(), session.endpoint(), position);
                    session.executor().run(c.routedAs(next));
                }));
    }

    private void timedOut(RoutedCommand c, TimeoutAction action, long started) {
        String endpoint = session.endpoint().name();
        long waited = System.nanoTime() - started;
        if (action == TimeoutAction.PRIMARY) {
            session.proxy().metrics().consistencyWait(endpoint, "timeout-primary", waited);
            session.executor().toPrimary(c.routedAs(RouteDecision.primary(RouteReason.CONSISTENCY_TIMEOUT)));
        } else {
            session.proxy().metrics().consistencyWait(endpoint, "timeout-error", waited);
            c.release();
            RouteError e = RouteError.consistencyTimeout();
            session.commandFailed(e.errorCode(), e.sqlState(), e.message());
        }
    }
}
