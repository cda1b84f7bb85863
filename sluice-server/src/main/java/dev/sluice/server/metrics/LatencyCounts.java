package dev.sluice.server.metrics;

import java.util.Arrays;

/**
 * A latency histogram's counts since start, as Prometheus has them: for each bound of
 * {@link #boundsSeconds()}, the statements that took at most that long, and the total (those
 * above the last bound included). Two readings make the histogram of the time between them.
 *
 * @param atOrBelow cumulative count per bound, same length as {@link #boundsSeconds()}
 * @param count every statement counted
 */
public record LatencyCounts(long[] atOrBelow, long count) {
    public static final LatencyCounts NONE = new LatencyCounts(new long[SluiceMetrics.LATENCY_BUCKETS.length], 0);

    public LatencyCounts {
        if (atOrBelow.length != SluiceMetrics.LATENCY_BUCKETS.length) {
            throw new IllegalArgumentException("one count per bucket: " + atOrBelow.length);
        }
        atOrBelow = atOrBelow.clone();
    }

    /** The bucket bounds of every latency histogram, in seconds, ascending. */
    public static double[] boundsSeconds() {
        return Arrays.stream(SluiceMetrics.LATENCY_BUCKETS).mapToDouble(d -> d.toNanos() / 1e9).toArray();
    }

    @Override
    public long[] atOrBelow() {
        return atOrBelow.clone();
    }

    LatencyCounts plus(LatencyCounts other) {
        long[] sum = new long[atOrBelow.length];
        for (int i = 0; i < sum.length; i++) {
            sum[i] = atOrBelow[i] + other.atOrBelow[i];
        }
        return new LatencyCounts(sum, count + other.count);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LatencyCounts l && count == l.count && Arrays.equals(atOrBelow, l.atOrBelow);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(atOrBelow) + Long.hashCode(count);
    }

    @Override
    public String toString() {
        return "LatencyCounts" + Arrays.toString(atOrBelow) + " of " + count;
    }
}
