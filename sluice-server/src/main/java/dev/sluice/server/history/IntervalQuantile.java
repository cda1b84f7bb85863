package dev.sluice.server.history;

import dev.sluice.server.metrics.LatencyCounts;

/**
 * A quantile of the statements counted between two readings of a latency histogram, estimated as
 * Prometheus's {@code histogram_quantile} does, so that the dashboard and a Grafana panel on
 * {@code /metrics} agree: the bucket holding the quantile is found from the differences of the
 * cumulative counts, and the value is interpolated linearly inside it (from 0 for the first
 * bucket). A quantile above the last bound is that bound: the histogram knows nothing higher.
 */
final class IntervalQuantile {
    private IntervalQuantile() {
    }

    /**
     * The {@code q} quantile in seconds of what {@code now} counted since {@code before}, or
     * {@code NaN} when nothing was counted meanwhile or the counts went backwards (they restarted).
     */
    static double of(double q, double[] boundsSeconds, LatencyCounts before, LatencyCounts now) {
        long total = now.count() - before.count();
        if (total <= 0) {
            return Double.NaN;
        }
        long[] was = before.atOrBelow();
        long[] is = now.atOrBelow();
        double rank = q * total;
        long below = 0;
        for (int i = 0; i < boundsSeconds.length; i++) {
            long atOrBelow = is[i] - was[i];
            if (atOrBelow < below) {
                return Double.NaN;
            }
            if (atOrBelow >= rank) {
                double lower = i == 0 ? 0 : boundsSeconds[i - 1];
                long inBucket = atOrBelow - below;
                double fraction = inBucket == 0 ? 1 : (rank - below) / inBucket;
                return lower + (boundsSeconds[i] - lower) * fraction;
            }
            below = atOrBelow;
        }
        return boundsSeconds[boundsSeconds.length - 1];
    }
}
