package dev.sluice.routing.gtid;

import java.util.Arrays;

/**
 * The transaction numbers of one MySQL GTID source: sorted, disjoint, non-adjacent closed ranges
 * stored flat as {@code [start0, end0, start1, end1, ...]}. Normalising on construction makes
 * equality, containment and printing plain loops.
 */
final class SequenceIntervals {

    static final SequenceIntervals EMPTY = new SequenceIntervals(new long[0]);

    private final long[] bounds;

    private SequenceIntervals(long[] bounds) {
        this.bounds = bounds;
    }

    /** Normalises arbitrary {@code [start, end]} pairs with {@code 1 <= start <= end}. */
    static SequenceIntervals of(long[] pairs, int pairCount) {
        long[][] sorted = new long[pairCount][];
        for (int i = 0; i < pairCount; i++) {
            sorted[i] = new long[] {pairs[2 * i], pairs[2 * i + 1]};
        }
        Arrays.sort(sorted, (a, b) -> Long.compare(a[0], b[0]));
        long[] out = new long[pairCount * 2];
        int n = 0;
        for (long[] range : sorted) {
            if (n > 0 && range[0] <= out[n - 1] + 1) {
                out[n - 1] = Math.max(out[n - 1], range[1]);
            } else {
                out[n++] = range[0];
                out[n++] = range[1];
            }
        }
        return new SequenceIntervals(Arrays.copyOf(out, n));
    }

    boolean isEmpty() {
        return bounds.length == 0;
    }

    SequenceIntervals union(SequenceIntervals other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        long[] all = Arrays.copyOf(bounds, bounds.length + other.bounds.length);
        System.arraycopy(other.bounds, 0, all, bounds.length, other.bounds.length);
        return of(all, all.length / 2);
    }

    /** How many numbers of {@code required} are not in this set (saturating). */
    long missing(SequenceIntervals required) {
        long missing = 0;
        int i = 0;
        for (int j = 0; j < required.bounds.length; j += 2) {
            long start = required.bounds[j];
            long end = required.bounds[j + 1];
            long covered = 0;
            while (i < bounds.length && bounds[i + 1] < start) {
                i += 2;
            }
            for (int k = i; k < bounds.length && bounds[k] <= end; k += 2) {
                long from = Math.max(start, bounds[k]);
                long to = Math.min(end, bounds[k + 1]);
                if (from <= to) {
                    covered += to - from + 1;
                }
            }
            long gap = end - start + 1 - covered;
            missing = missing > Long.MAX_VALUE - gap ? Long.MAX_VALUE : missing + gap;
        }
        return missing;
    }

    void appendTo(StringBuilder out) {
        for (int i = 0; i < bounds.length; i += 2) {
            out.append(':').append(bounds[i]);
            if (bounds[i + 1] != bounds[i]) {
                out.append('-').append(bounds[i + 1]);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SequenceIntervals other && Arrays.equals(bounds, other.bounds);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bounds);
    }
}
