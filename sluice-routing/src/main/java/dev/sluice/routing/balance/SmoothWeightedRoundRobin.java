package dev.sluice.routing.balance;

import java.util.Arrays;

/**
 * BEHAVIOUR §2 {@code weighted}: smooth weighted round-robin, in the order that section gives. Each
 * pick takes the candidate with the highest {@code current} (ties: configuration order), subtracts the
 * candidates' total weight from it, then adds every candidate's own weight to its {@code current}.
 * With weights 100/200/200 from zero this yields primary, ro1, ro2, ro1, ro2, primary, ...
 *
 * <p>One instance serves every session of an endpoint, so a stream of one-statement sessions still
 * spreads; event-loop threads share it, hence the short {@code synchronized} pick. Only the
 * candidates of a pick take part in it (as nginx skips peers that are down), so a node that is
 * not eligible for one read does not bank credit meanwhile. {@code current} is indexed by node id,
 * which is stable across topology snapshots, so a snapshot change keeps the rotation.
 */
public final class SmoothWeightedRoundRobin implements Balancer {

    private static final int INITIAL_CAPACITY = 8;

    private long[] current = new long[INITIAL_CAPACITY];

    @Override
    public synchronized int pick(int[] nodeIds, long candidates, WeightSource weights, ActiveRequests load) {
        int best = NO_PICK;
        long bestCurrent = 0;
        long total = 0;
        for (long rest = candidates; rest != 0; rest &= rest - 1) {
            int p = Long.numberOfTrailingZeros(rest);
            int weight = weights.weightOf(nodeIds[p]);
            if (weight <= 0) {
                continue;
            }
            total += weight;
            ensureCapacity(nodeIds[p]);
            long value = current[nodeIds[p]];
            if (best == NO_PICK || value > bestCurrent) {
                best = p;
                bestCurrent = value;
            }
        }
        if (best == NO_PICK) {
            return NO_PICK;
        }
        current[nodeIds[best]] -= total;
        for (long rest = candidates; rest != 0; rest &= rest - 1) {
            int p = Long.numberOfTrailingZeros(rest);
            int weight = weights.weightOf(nodeIds[p]);
            if (weight > 0) {
                current[nodeIds[p]] += weight;
            }
        }
        return best;
    }

    /** The {@code current} value of a node (for tests and the dashboard). */
    public synchronized long currentOf(int nodeId) {
        return nodeId < current.length ? current[nodeId] : 0;
    }

    private void ensureCapacity(int nodeId) {
        if (nodeId >= current.length) {
            current = Arrays.copyOf(current, Math.max(nodeId + 1, current.length * 2));
        }
    }

    @Override
    public String toString() {
        return "weighted";
    }
}
