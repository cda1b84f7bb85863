package dev.sluice.server.digest;

import dev.sluice.routing.sql.Digest;
import dev.sluice.routing.sql.StatementDigest;

/**
 * One digest's figures on one I/O thread (BEHAVIOUR §12): its key — endpoint, account, schema,
 * hints and digest text — and what its statements cost. Only that thread touches it.
 */
public final class DigestEntry {
    final long hash;
    final String endpoint;
    final String account;
    final String schema;
    final int hints;
    final byte[] text;
    final String textString;
    final boolean other;
    /** The {@link LoopDigests} generation it belongs to: a cleared store drops what its old entries record. */
    final int generation;
    /** Folded into the endpoint's "other" row to make room: what it records now goes there. */
    boolean evicted;

    long count;
    long errors;
    long totalNanos;
    long maxNanos;
    long rowsSent;
    long onPrimary;
    long onReplicas;
    long firstSeenMillis;
    long lastSeenMillis;
    final LatencyBuckets latency = new LatencyBuckets();

    DigestEntry(long hash, String endpoint, String account, String schema, int hints, byte[] text, String textString,
            boolean other, int generation) {
        this.hash = hash;
        this.endpoint = endpoint;
        this.account = account;
        this.schema = schema;
        this.hints = hints;
        this.text = text;
        this.textString = textString;
        this.other = other;
        this.generation = generation;
    }

    boolean matches(Digest digest, String endpointName, String accountName, String schemaName) {
        return hints == digest.hints() && endpoint.equals(endpointName) && account.equals(accountName)
                && schema.equals(schemaName) && digest.textEquals(text);
    }

    void record(long nanos, boolean error, long rows, boolean primary, long nowMillis) {
        count++;
        if (error) {
            errors++;
        }
        totalNanos += nanos;
        maxNanos = Math.max(maxNanos, nanos);
        rowsSent += Math.max(0, rows);
        if (primary) {
            onPrimary++;
        } else {
            onReplicas++;
        }
        if (firstSeenMillis == 0) {
            firstSeenMillis = nowMillis;
        }
        lastSeenMillis = nowMillis;
        latency.record(nanos);
    }

    /** Adds {@code e}'s figures to this one's (an evicted digest folded into "other"). */
    void fold(DigestEntry e) {
        count += e.count;
        errors += e.errors;
        totalNanos += e.totalNanos;
        maxNanos = Math.max(maxNanos, e.maxNanos);
        rowsSent += e.rowsSent;
        onPrimary += e.onPrimary;
        onReplicas += e.onReplicas;
        if (e.firstSeenMillis != 0 && (firstSeenMillis == 0 || e.firstSeenMillis < firstSeenMillis)) {
            firstSeenMillis = e.firstSeenMillis;
        }
        lastSeenMillis = Math.max(lastSeenMillis, e.lastSeenMillis);
        latency.add(e.latency.copy());
    }

    DigestFigures figures() {
        return new DigestFigures(new DigestFigures.Key(endpoint, account, schema, StatementDigest.hintText(hints),
                textString, other), count, errors, totalNanos, maxNanos, rowsSent, onPrimary, onReplicas,
                firstSeenMillis, lastSeenMillis, latency.copy());
    }
}
