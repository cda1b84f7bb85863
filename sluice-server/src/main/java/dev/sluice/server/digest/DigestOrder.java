package dev.sluice.server.digest;

import java.util.Comparator;

/** How {@code GET /v1/digests} orders its rows: most first. */
public enum DigestOrder {
    /** Total time spent answering the digest's statements. */
    TOTAL(Comparator.comparingLong(DigestFigures::totalNanos)),
    /** Statements answered. */
    COUNT(Comparator.comparingLong(DigestFigures::count)),
    /** The 99th percentile of the statements' latency. */
    P99(Comparator.comparingLong(DigestFigures::p99Micros));

    private final Comparator<DigestFigures> descending;

    DigestOrder(Comparator<DigestFigures> ascending) {
        this.descending = ascending.reversed().thenComparing(f -> f.key().digest());
    }

    Comparator<DigestFigures> comparator() {
        return descending;
    }
}
