package dev.sluice.server.digest;

import java.time.Instant;

/**
 * One row of {@code GET /v1/digests} (BEHAVIOUR §12). Times are in microseconds.
 *
 * @param endpoint the endpoint the statements came in on
 * @param account the client's account (user name)
 * @param schema the session's default database; empty when none
 * @param digest the normalised statement (literals as {@code ?}, lists folded)
 * @param hints the routing hints before the statement ({@code FORCE_MASTER}, {@code FORCE_SLAVE},
 *     {@code CONSISTENT_WITH}), space-separated; empty when none
 * @param other this row sums the endpoint's digests that did not fit among the top ones
 * @param count statements answered
 * @param errors statements whose answer was an error
 * @param totalMicros time from the statement's arrival to the end of its answer, summed
 * @param meanMicros total / count
 * @param p99Micros 99th percentile (to within 19 %, never above the maximum)
 * @param maxMicros the slowest
 * @param rowsSent rows of the result sets sent to clients
 * @param onPrimary statements answered by the primary
 * @param onReplicas statements answered by a replica
 * @param firstSeen when the first of them was answered (ISO-8601, UTC)
 * @param lastSeen when the last of them was answered (ISO-8601, UTC)
 */
public record DigestSummary(String endpoint, String account, String schema, String digest, String hints,
        boolean other, long count, long errors, long totalMicros, long meanMicros, long p99Micros, long maxMicros,
        long rowsSent, long onPrimary, long onReplicas, String firstSeen, String lastSeen) {

    private static final long NANOS_PER_MICRO = 1_000;

    static DigestSummary of(DigestFigures f) {
        DigestFigures.Key k = f.key();
        long total = f.totalNanos() / NANOS_PER_MICRO;
        return new DigestSummary(k.endpoint(), k.account(), k.schema(), k.digest(), k.hints(), k.other(), f.count(),
                f.errors(), total, f.count() == 0 ? 0 : total / f.count(), f.p99Micros(),
                f.maxNanos() / NANOS_PER_MICRO, f.rowsSent(), f.onPrimary(), f.onReplicas(),
                Instant.ofEpochMilli(f.firstSeenMillis()).toString(),
                Instant.ofEpochMilli(f.lastSeenMillis()).toString());
    }
}
