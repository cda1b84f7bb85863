package dev.sluice.server.digest;

/**
 * A copy of one digest's figures, taken on its I/O thread, for the admin API to sum across
 * threads and order.
 */
record DigestFigures(Key key, long count, long errors, long totalNanos, long maxNanos, long rowsSent, long onPrimary,
        long onReplicas, long firstSeenMillis, long lastSeenMillis, int[] latency) {

    /** What makes two digests one: the same on every I/O thread. */
    record Key(String endpoint, String account, String schema, String hints, String digest, boolean other) {
    }

    /** Both digests' figures as one. */
    DigestFigures plus(DigestFigures o) {
        LatencyBuckets sum = new LatencyBuckets();
        sum.add(latency);
        sum.add(o.latency);
        long first = firstSeenMillis == 0 ? o.firstSeenMillis
                : o.firstSeenMillis == 0 ? firstSeenMillis : Math.min(firstSeenMillis, o.firstSeenMillis);
        return new DigestFigures(key, count + o.count, errors + o.errors, totalNanos + o.totalNanos,
                Math.max(maxNanos, o.maxNanos), rowsSent + o.rowsSent, onPrimary + o.onPrimary,
                onReplicas + o.onReplicas, first, Math.max(lastSeenMillis, o.lastSeenMillis), sum.copy());
    }

    /** These figures counted in {@code other}'s row instead (a digest past the top ones). */
    DigestFigures as(Key other) {
        return new DigestFigures(other, count, errors, totalNanos, maxNanos, rowsSent, onPrimary, onReplicas,
                firstSeenMillis, lastSeenMillis, latency);
    }

    long p99Micros() {
        return LatencyBuckets.quantileMicros(latency, 0.99, maxNanos / 1_000);
    }
}
