package dev.sluice.routing;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.policy.TimeoutAction;
import java.time.Duration;
import java.util.Optional;

/**
 * Where a statement goes: the router's whole answer. The server executes it and tells the session
 * with {@code RoutingSession.onStatementSent}.
 */
public sealed interface RouteDecision {

    /** Why; for metrics. */
    RouteReason reason();

    /** To the primary. Instances are shared per reason: no allocation. */
    static ToPrimary primary(RouteReason reason) {
        return ToPrimary.BY_REASON[reason.ordinal()];
    }

    /** To a replica with nothing to wait for; shared instances for the first node ids. */
    static ToReplica replica(int nodeId, RouteReason reason) {
        if (nodeId >= 0 && nodeId < ToReplica.CACHED_IDS) {
            return ToReplica.CACHE[reason.ordinal()][nodeId];
        }
        return new ToReplica(nodeId, reason, ConsistencyRequirement.NONE);
    }

    /** Run on the primary. */
    record ToPrimary(RouteReason reason) implements RouteDecision {
        private static final ToPrimary[] BY_REASON = cache();

        private static ToPrimary[] cache() {
            RouteReason[] reasons = RouteReason.values();
            ToPrimary[] all = new ToPrimary[reasons.length];
            for (RouteReason r : reasons) {
                all[r.ordinal()] = new ToPrimary(r);
            }
            return all;
        }
    }

    /**
     * Run on replica {@code nodeId}, after {@code consistency} is met.
     *
     * @param nodeId      the replica's node id
     * @param reason      why
     * @param consistency nothing, or the GTID position to wait for first
     */
    record ToReplica(int nodeId, RouteReason reason, ConsistencyRequirement consistency) implements RouteDecision {
        /** Node ids below this get shared decisions, so a routine read allocates nothing. */
        private static final int CACHED_IDS = 128;
        private static final ToReplica[][] CACHE = cache();

        private static ToReplica[][] cache() {
            RouteReason[] reasons = RouteReason.values();
            ToReplica[][] all = new ToReplica[reasons.length][CACHED_IDS];
            for (RouteReason r : reasons) {
                for (int id = 0; id < CACHED_IDS; id++) {
                    all[r.ordinal()][id] = new ToReplica(id, r, ConsistencyRequirement.NONE);
                }
            }
            return all;
        }
    }

    /**
     * Run on every backend of the session; the client gets the primary's answer (BEHAVIOUR §3). The
     * session records it for replay once the primary's OK arrives.
     */
    record ToAllBackends(RouteReason reason) implements RouteDecision {
    }

    /** Answer the client with {@code error} and send nothing. */
    record Reject(RouteError error, RouteReason reason) implements RouteDecision {
    }

    /** Sluice answers by itself. */
    record AnswerLocally(LocalAnswer answer) implements RouteDecision {
        @Override
        public RouteReason reason() {
            return RouteReason.LOCAL;
        }
    }

    /**
     * Global consistency (BEHAVIOUR §5): fetch the primary's GTID position (one question shared by the
     * reads waiting for it), then call {@code Router.routeAtPrimaryPosition} with it.
     *
     * @param timeout       the read consistency timeout
     * @param onTimeout     the timeout action
     * @param alsoRequired  a position from a CONSISTENT_WITH hint, merged in by the second call
     */
    record NeedPrimaryPosition(Duration timeout, TimeoutAction onTimeout, Optional<GtidPosition> alsoRequired)
            implements RouteDecision {
        @Override
        public RouteReason reason() {
            return RouteReason.CONSISTENCY_PRIMARY_POSITION;
        }
    }
}
