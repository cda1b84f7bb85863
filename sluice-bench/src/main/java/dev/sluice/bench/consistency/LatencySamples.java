package dev.sluice.bench.consistency;

import java.util.Arrays;

/**
 * Every measured read latency of one session, kept exactly: a run has a few hundred thousand
 * reads, so sorting them all at the end is cheap and avoids a histogram's bucket error in p99.
 * Not thread-safe: one per session thread, merged after the run.
 */
final class LatencySamples {
    private static final int INITIAL_CAPACITY = 4096;

    private long[] nanos = new long[INITIAL_CAPACITY];
    private int size;

    void add(long sample) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, size * 2);
        }
        nanos[size++] = sample;
    }

    int size() {
        return size;
    }

    static LatencySummary summarize(Iterable<LatencySamples> parts) {
        int total = 0;
        for (LatencySamples p : parts) {
            total += p.size;
        }
        long[] all = new long[total];
        int at = 0;
        for (LatencySamples p : parts) {
            System.arraycopy(p.nanos, 0, all, at, p.size);
            at += p.size;
        }
        Arrays.sort(all);
        return new LatencySummary(total, rank(all, 0.50), rank(all, 0.99), total == 0 ? 0 : all[total - 1]);
    }

    /** Nearest-rank percentile. */
    private static long rank(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
