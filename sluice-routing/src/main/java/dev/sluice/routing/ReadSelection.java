package dev.sluice.routing;

import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.balance.Balancer;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.TimeoutAction;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Hint;
import dev.sluice.routing.sql.Statement;
import java.time.Duration;
import java.util.Optional;

/**
 * Chooses the node for a read on a read-write endpoint (BEHAVIOUR §2, §4, §5).
 *
 * <p>Candidates are the session's replicas of weight above 0 that the readable set allows (only
 * those of the preferred zone when the endpoint prefers one and any of them is a candidate), plus
 * the primary when it has a read weight. No candidate replica: the primary takes the read, whatever
 * its weight. FORCE_SLAVE: a replica, no consistency wait. Otherwise the consistency level sets a
 * required GTID position (merged with a CONSISTENT_WITH hint): the balancer picks among the
 * candidates known to have it (the primary always has it); if none does, the read waits on the
 * replica closest to it, or the timeout action applies at once when the timeout is zero. Under
 * {@code session}, a session whose own position is not known (a GTID may have been lost) reads
 * the primary.
 */
final class ReadSelection {

    private ReadSelection() {
    }

    static RouteDecision select(Statement s, RoutingSession session, EndpointView view, ActiveRequests load,
                                RouteReason reason, GtidPosition primaryPosition) {
        int[] ids = view.nodeIds();
        long replicas = 0;
        for (long rest = view.usableReplicaMask(); rest != 0; rest &= rest - 1) {
            int p = Long.numberOfTrailingZeros(rest);
            if (session.weightOf(ids[p]) > 0) {
                replicas |= 1L << p;
            }
        }
        if (replicas == 0) {
            return RouteDecision.primary(RouteReason.FALLBACK_NO_REPLICA);
        }
        replicas = view.preferredZone(replicas);
        Balancer balancer = view.balancer();
        if (s.hint() == Hint.FORCE_SLAVE) {
            return decide(ids, balancer.pick(ids, replicas, session, load), view, RouteReason.HINT);
        }
        int primary = view.primaryPosition();
        long primaryBit = primary >= 0 && view.primaryReachable() && session.weightOf(ids[primary]) > 0
                ? 1L << primary : 0;
        EndpointPolicy policy = view.policy();
        if (policy.consistency() == ConsistencyLevel.SESSION && session.ownPositionUnknown()) {
            return RouteDecision.primary(RouteReason.CONSISTENCY_POSITION_UNKNOWN);
        }
        if (policy.consistency() == ConsistencyLevel.GLOBAL && primaryPosition == null) {
            return new RouteDecision.NeedPrimaryPosition(policy.consistencyTimeout(), policy.timeoutAction(),
                    s.consistencyToken());
        }
        GtidPosition required = required(s, session, policy, primaryPosition);
        if (required == null) {
            return decide(ids, balancer.pick(ids, replicas | primaryBit, session, load), view, reason);
        }
        long satisfied = 0;
        for (long rest = replicas; rest != 0; rest &= rest - 1) {
            int p = Long.numberOfTrailingZeros(rest);
            GtidPosition has = view.gtidOrNull(p);
            if (has != null && has.contains(required)) {
                satisfied |= 1L << p;
            }
        }
        if ((satisfied | primaryBit) != 0) {
            return decide(ids, balancer.pick(ids, satisfied | primaryBit, session, load), view, reason);
        }
        Duration timeout = policy.consistencyTimeout();
        if (timeout.isZero() || timeout.isNegative()) {
            return policy.timeoutAction() == TimeoutAction.PRIMARY
                    ? RouteDecision.primary(RouteReason.CONSISTENCY_TIMEOUT)
                    : new RouteDecision.Reject(RouteError.consistencyTimeout(), RouteReason.CONSISTENCY_TIMEOUT);
        }
        int best = closest(replicas, required, view, session);
        return new RouteDecision.ToReplica(ids[best], RouteReason.CONSISTENCY_WAIT,
                new ConsistencyRequirement.WaitFor(required, timeout, policy.timeoutAction()));
    }

    /** The position the read must see, or null when nothing is required. */
    private static GtidPosition required(Statement s, RoutingSession session, EndpointPolicy policy,
                                         GtidPosition primaryPosition) {
        GtidPosition required = primaryPosition;
        Optional<GtidPosition> token = s.consistencyToken();
        if (token.isPresent()) {
            required = required == null ? token.get() : required.merge(token.get());
        }
        if (policy.consistency() == ConsistencyLevel.SESSION && session.lastGtid().isPresent()) {
            GtidPosition own = session.lastGtid().get();
            required = required == null ? own : required.merge(own);
        }
        return required == null || required.isEmpty() ? null : required;
    }

    /** The replica missing the fewest required transactions; then the least lag; then configuration order. */
    private static int closest(long replicas, GtidPosition required, EndpointView view, RoutingSession session) {
        int best = -1;
        long bestMissing = Long.MAX_VALUE;
        long bestLag = Long.MAX_VALUE;
        for (long rest = replicas; rest != 0; rest &= rest - 1) {
            int p = Long.numberOfTrailingZeros(rest);
            GtidPosition has = view.gtidOrNull(p);
            long missing = has == null ? Long.MAX_VALUE : has.missingCount(required);
            long lag = view.lagAt(p) < 0 ? Long.MAX_VALUE : view.lagAt(p);
            if (best < 0 || missing < bestMissing || (missing == bestMissing && lag < bestLag)) {
                best = p;
                bestMissing = missing;
                bestLag = lag;
            }
        }
        return best;
    }

    private static RouteDecision decide(int[] ids, int position, EndpointView view, RouteReason reason) {
        if (position == Balancer.NO_PICK || position == view.primaryPosition()) {
            return RouteDecision.primary(position == Balancer.NO_PICK ? RouteReason.FALLBACK_NO_REPLICA : reason);
        }
        return RouteDecision.replica(ids[position], reason);
    }
}
