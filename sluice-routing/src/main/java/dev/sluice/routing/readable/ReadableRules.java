package dev.sluice.routing.readable;

import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * BEHAVIOUR §4: the lag threshold, broken replication and {@code min-reserved-nodes}.
 *
 * <p>A replica <em>passes the health rules</em> when it is reachable, not draining, its replication
 * threads run (only the applier, while the primary is down) and its lag is known and within
 * {@code max-replication-lag}. It is <em>readable</em>
 * when it passes them with a weight above 0. Then, to keep {@code min(N, replicas of weight ≠ 0)}
 * replicas readable, failing replicas are added in this order: (1) those readable before, so reads
 * do not hop when everything lags; (2) lagging before broken (unknown lag counts as broken: nothing
 * says the data is usable); (3) higher weight; (4) configuration order. Unreachable and draining
 * replicas are never kept (reads cannot run on a dead node, and draining is an explicit request to
 * leave); they do not count towards N either.
 */
public final class ReadableRules {

    private ReadableRules() {
    }

    /**
     * The readable set of {@code policy}'s endpoint.
     *
     * @param previous the set computed before this change ({@link ReadableSet#NONE} at start)
     */
    public static ReadableSet compute(Topology topology, EndpointPolicy policy, ReadableSet previous) {
        List<Node> replicas = new ArrayList<>();
        for (Node node : policy.resolveNodes(topology)) {
            if (node.isReplica()) {
                replicas.add(node);
            }
        }
        List<Integer> healthy = new ArrayList<>();
        List<Integer> readable = new ArrayList<>();
        List<Node> reserveCandidates = new ArrayList<>();
        int weighted = 0;
        boolean primaryDown = topology.primary().map(p -> !p.state().reachable()).orElse(true);
        for (Node replica : replicas) {
            boolean usable = replica.state().reachable() && !replica.draining();
            boolean passes = usable && (!replica.state().replicationBroken() || lostOnlyItsSource(replica, primaryDown))
                    && replica.state().lag().isKnown() && !replica.state().lag().exceeds(policy.maxReplicationLag());
            int weight = policy.weightOf(replica);
            if (passes) {
                healthy.add(replica.id());
            }
            if (weight > 0 && usable) {
                weighted++;
                if (passes) {
                    readable.add(replica.id());
                } else {
                    reserveCandidates.add(replica);
                }
            }
        }
        int keep = Math.min(Math.max(policy.minReservedNodes(), 0), weighted);
        int missing = keep - readable.size();
        if (missing > 0) {
            List<Node> order = new ArrayList<>(reserveCandidates);
            order.sort(Comparator
                    .comparing((Node n) -> !previous.isReadable(n.id()))
                    .thenComparing(n -> !n.state().lag().isKnown() || n.state().replicationBroken())
                    .thenComparing(n -> -policy.weightOf(n)));
            for (int i = 0; i < missing; i++) {
                readable.add(order.get(i).id());
            }
        }
        return new ReadableSet(toArray(readable), toArray(healthy));
    }

    /**
     * With the primary down, every replica's I/O thread fails to reconnect: that alone is the
     * primary's failure, not the replica's. A replica whose applier still runs holds the newest
     * data there is (its lag, measured against the primary's last known positions, says how
     * much it misses), so it keeps passing — reads keep working on replicas when the primary
     * fails (BEHAVIOUR §4) instead of all going to the dead primary.
     */
    private static boolean lostOnlyItsSource(Node replica, boolean primaryDown) {
        return primaryDown && replica.state().sqlThreadRunning() && !replica.state().ioThreadRunning();
    }

    private static int[] toArray(List<Integer> ids) {
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }
}
