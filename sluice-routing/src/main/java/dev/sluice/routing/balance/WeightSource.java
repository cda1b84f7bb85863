package dev.sluice.routing.balance;

/**
 * Where a pick reads node weights from. A session answers with the weights it started with
 * (BEHAVIOUR §8), so the same balancer serves sessions that see different weights.
 */
@FunctionalInterface
public interface WeightSource {

    /** The read weight of {@code nodeId}, 0 when it takes no reads (or is unknown). */
    int weightOf(int nodeId);
}
