package dev.sluice.bench.consistency;

/**
 * What Sluice reports about its consistency waits on one endpoint over a run (from its
 * {@code sluice_consistency_wait_seconds} metric): waits that reached the position on a replica,
 * and waits that timed out (the read then went to the primary or failed). It explains a replica
 * share: every timeout is a read the primary took.
 */
record ConsistencyWaits(long reached, double reachedSeconds, long timedOut, double timedOutSeconds) {

    ConsistencyWaits minus(ConsistencyWaits earlier) {
        return new ConsistencyWaits(reached - earlier.reached, reachedSeconds - earlier.reachedSeconds,
                timedOut - earlier.timedOut, timedOutSeconds - earlier.timedOutSeconds);
    }

    double reachedMeanMillis() {
        return reached == 0 ? 0 : reachedSeconds * 1000 / reached;
    }

    double timedOutMeanMillis() {
        return timedOut == 0 ? 0 : timedOutSeconds * 1000 / timedOut;
    }
}
