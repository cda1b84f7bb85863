package dev.sluice.server.frontend;

import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.server.runtime.EndpointRuntime;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of a session's reads are kept for a retry, and where one that failed is sent next
 * (BEHAVIOUR §3, §4). {@link ReadRetries} holds the kept read; this decides.
 */
final class ReadRerouting {
    private static final Logger LOG = LoggerFactory.getLogger(ReadRerouting.class);

    private final long connectionId;
    private final RoutingSession routing;
    private final EndpointRuntime endpoint;
    private final ReadRetries retries;
    private final Consumer<RoutedCommand> run;

    /** @param run carries out a read routed again, as the session's first routing would have */
    ReadRerouting(long connectionId, RoutingSession routing, EndpointRuntime endpoint, ReadRetries retries,
            Consumer<RoutedCommand> run) {
        this.connectionId = connectionId;
        this.routing = routing;
        this.endpoint = endpoint;
        this.retries = retries;
        this.run = run;
    }

    /**
     * Keeps a copy of a read about to go to a replica (outside a transaction, or before the first
     * write of a split one): should the replica fail — or refuse the session's state — before any
     * byte of the answer reached the client, the read is routed again and the client sees no error.
     * Taken before the packet is adapted to the node, so a retry can adapt it to another.
     *
     * <p>A read on the primary only because no replica was readable is kept too. When the primary
     * dies, its replicas see their source go a moment before the monitor sees the primary go: in
     * between, no replica passes the health rules and reads fall back to the dead primary. Its
     * failure marks it down at once, which makes the replicas that lost only their source
     * readable again, and the read is routed again to one of them.
     */
    void keep(RoutedCommand read, int nodeId) {
        // Inside a transaction that is not split (a read-only endpoint's), the reads belong to the
        // transaction's snapshot on that one replica: elsewhere they would read another.
        if (routing.inTransaction() && read.decision().reason() != RouteReason.TRANSACTION_SPLIT) {
            retries.release();
        } else {
            retries.keep(read, nodeId, this::routeAgain);
        }
    }

    /**
     * A read about to wait for its consistency on {@code node}, which the session has not opened
     * yet: opening it replays the session's state there, and a replica that refuses that state
     * leaves the session while the read goes elsewhere, as a read sent without a wait does
     * (BEHAVIOUR §3). Kept only until the replica is open ({@link #openedForWait}): from then on
     * the wait's own outcome decides where the read runs.
     */
    void keepWhileOpening(RoutedCommand read, int nodeId) {
        keep(read, nodeId);
    }

    /** The replica a read waits on is open: see {@link #keepWhileOpening}. */
    void openedForWait() {
        retries.opened();
    }

    /**
     * Where a read that replicas failed is sent again: where it routes now, except that its last
     * try goes to the primary. Replicas that keep failing reads under them are flapping (their
     * monitor checks keep missing): another replica may go the same way, and then the client
     * would get the error. The primary serves any read, at any consistency (BEHAVIOUR §4).
     */
    RouteDecision forRetry(RouteDecision routed, boolean lastTry) {
        if (lastTry && routed instanceof RouteDecision.ToReplica && !routing.inTransaction() && primaryTakesReads()) {
            return RouteDecision.primary(RouteReason.FALLBACK_REPLICAS_FAILED);
        }
        return routed;
    }

    /** Routes a failed read again, now that its node is known to be down. */
    private void routeAgain(ReadRetry r) {
        RoutedCommand read = r.command();
        RouteDecision d = forRetry(Router.route(read.statement(), routing, endpoint.view(), endpoint), r.lastTry());
        LOG.debug("session {}: read failed on node {}, routed again: {}", connectionId, r.nodeId(), d);
        run.accept(read.routedAs(d));
    }

    /** A read-write endpoint whose primary the monitor reaches: it can take a read that replicas failed. */
    private boolean primaryTakesReads() {
        return !endpoint.config().isReadOnly() && endpoint.view().topology().primary()
                .filter(p -> p.state().reachable()).isPresent();
    }
}
