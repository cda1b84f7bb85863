package dev.sluice.routing.balance;

/**
 * BEHAVIOUR §2 {@code least-active}: the candidate with the smallest {@code (active + 1) / weight};
 * ties go to the higher weight, then to configuration order. Stateless, hence one shared instance.
 *
 * <p>The ratio is compared by cross-multiplication in {@code long}, so there is no floating-point
 * rounding to make two equal ratios differ.
 */
public final class LeastActive implements Balancer {

    public static final LeastActive INSTANCE = new LeastActive();

    private LeastActive() {
    }

    @Override
    public int pick(int[] nodeIds, long candidates, WeightSource weights, ActiveRequests load) {
        int best = NO_PICK;
        long bestLoad = 0;
        long bestWeight = 0;
        for (long rest = candidates; rest != 0; rest &= rest - 1) {
            int p = Long.numberOfTrailingZeros(rest);
            int nodeId = nodeIds[p];
            long weight = weights.weightOf(nodeId);
            if (weight <= 0) {
                continue;
            }
            long active = Math.max(0, load.activeRequests(nodeId)) + 1L;
            if (best == NO_PICK) {
                best = p;
                bestLoad = active;
                bestWeight = weight;
                continue;
            }
            long mine = active * bestWeight;
            long theirs = bestLoad * weight;
            if (mine < theirs || (mine == theirs && weight > bestWeight)) {
                best = p;
                bestLoad = active;
                bestWeight = weight;
            }
        }
        return best;
    }

    @Override
    public String toString() {
        return "least-active";
    }
}
