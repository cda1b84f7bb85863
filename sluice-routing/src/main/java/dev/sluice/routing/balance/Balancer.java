package dev.sluice.routing.balance;

/**
 * BEHAVIOUR §2: chooses one node among the candidates of a read.
 *
 * <p>Candidates are given as a bit mask over {@code nodeIds} (bit {@code p} set means
 * {@code nodeIds[p]} may take the read), so a pick allocates nothing. {@code nodeIds} is in the
 * endpoint's configuration order, which breaks ties. Candidates of weight 0 never win.
 */
public sealed interface Balancer permits SmoothWeightedRoundRobin, LeastActive {

    /** Returned when no candidate has a weight above 0. */
    int NO_PICK = -1;

    /**
     * The position in {@code nodeIds} of the chosen node, or {@link #NO_PICK}.
     *
     * @param nodeIds    node ids in configuration order (at most 64)
     * @param candidates bit {@code p} set when {@code nodeIds[p]} is a candidate
     * @param weights    the weights this pick uses
     * @param load       active request counts
     */
    int pick(int[] nodeIds, long candidates, WeightSource weights, ActiveRequests load);
}
