package dev.sluice.bench.consistency;

/** Read latency of a run: how many reads, and their median, 99th percentile and maximum. */
record LatencySummary(long count, long p50Nanos, long p99Nanos, long maxNanos) {
    private static final double NANOS_PER_MILLI = 1_000_000.0;

    double p50Millis() {
        return p50Nanos / NANOS_PER_MILLI;
    }

    double p99Millis() {
        return p99Nanos / NANOS_PER_MILLI;
    }

    double maxMillis() {
        return maxNanos / NANOS_PER_MILLI;
    }
}
