package dev.sluice.server.digest;

/**
 * A latency distribution in fixed buckets, enough for a digest's p99 (BEHAVIOUR §12) in half a
 * kilobyte: microseconds, four buckets per power of two (so a percentile is read to within 19 %),
 * from 1 µs up to about 9.5 hours, longer ones in the last bucket. Recording is an index
 * computation and an increment; nothing is allocated.
 *
 * <p>Counts are {@code int}: when one would overflow, every bucket is halved, which keeps the
 * shape (and so the percentiles) while the exact count lives in the digest.
 */
final class LatencyBuckets {
    /** Values below this many microseconds get a bucket each. */
    private static final int EXACT_BELOW = 4;
    private static final int SUB_BUCKETS = 4;
    private static final int SUB_BITS = 2;
    /** The largest power of two with buckets of its own: 2^35 µs is about 9.5 hours. */
    private static final int MAX_EXPONENT = 34;
    static final int BUCKETS = SUB_BUCKETS * (MAX_EXPONENT - 1) + SUB_BUCKETS;
    private static final int HALVE_AT = 1 << 30;
    private static final long NANOS_PER_MICRO = 1_000;

    private final int[] counts = new int[BUCKETS];

    void record(long nanos) {
        int i = index(Math.max(0, nanos / NANOS_PER_MICRO));
        if (++counts[i] >= HALVE_AT) {
            for (int j = 0; j < BUCKETS; j++) {
                counts[j] = (counts[j] + 1) >>> 1;
            }
        }
    }

    /** Adds {@code other}'s counts (a digest folded into another, or summed across threads). */
    void add(int[] other) {
        long biggest = 0;
        for (int j = 0; j < BUCKETS; j++) {
            biggest = Math.max(biggest, (long) counts[j] + other[j]);
        }
        int shift = 0;
        while ((biggest >>> shift) >= HALVE_AT) {
            shift++;
        }
        for (int j = 0; j < BUCKETS; j++) {
            counts[j] = (int) (((long) counts[j] + other[j] + (1L << shift) - 1) >>> shift);
        }
    }

    int[] copy() {
        return counts.clone();
    }

    /**
     * The {@code q} quantile in microseconds: the upper bound of the bucket that holds it, capped
     * at {@code maxMicros} (the largest value seen); 0 when nothing was recorded.
     */
    static long quantileMicros(int[] counts, double q, long maxMicros) {
        long total = 0;
        for (int c : counts) {
            total += c;
        }
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(upperBoundMicros(i), maxMicros);
            }
        }
        return maxMicros;
    }

    static int index(long micros) {
        if (micros < EXACT_BELOW) {
            return (int) micros;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(micros);
        if (exponent > MAX_EXPONENT) {
            return BUCKETS - 1;
        }
        int sub = (int) (micros >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
        return SUB_BUCKETS * (exponent - 1) + sub;
    }

    /** The smallest value (µs) of the bucket after {@code index}: every value in {@code index} is below it. */
    static long upperBoundMicros(int index) {
        int next = index + 1;
        if (next < EXACT_BELOW) {
            return next;
        }
        if (next >= BUCKETS) {
            return Long.MAX_VALUE;
        }
        int exponent = next / SUB_BUCKETS + 1;
        int sub = next % SUB_BUCKETS;
        return (long) (SUB_BUCKETS + sub) << (exponent - SUB_BITS);
    }
}
