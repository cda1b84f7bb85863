package dev.sluice.server.monitor;

import dev.sluice.routing.gtid.GtidPosition;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Replication lag derived from GTIDs: a replica lags at least as long as the oldest primary
 * position it has not applied has existed. This shows a replica falling behind as soon as the
 * monitor has seen it miss a transaction, where {@code Seconds_Behind_Master} only grows once
 * the SQL thread works on an old event (and is NULL when it is stopped).
 *
 * <p>Pure: the caller supplies observation times. Thread-safe (the monitor's probes run on
 * different event loops).
 */
public final class GtidLagEstimator {
    private record Sample(long nanos, GtidPosition position) {
    }

    private final int capacity;
    private final ArrayDeque<Sample> primarySamples = new ArrayDeque<>();

    /** @param capacity how many primary samples to keep (at 1 s intervals, the longest lag measurable) */
    public GtidLagEstimator(int capacity) {
        this.capacity = capacity;
    }

    /** Records the primary's position at {@code nanos}. */
    public synchronized void primaryAt(long nanos, GtidPosition position) {
        Sample last = primarySamples.peekLast();
        if (last != null && last.position().equals(position)) {
            return;
        }
        primarySamples.addLast(new Sample(nanos, position));
        while (primarySamples.size() > capacity) {
            primarySamples.pollFirst();
        }
    }

    /**
     * Seconds a replica at {@code replicaPosition} lags at {@code nowNanos}: from the oldest primary
     * sample it does not contain; 0 when it contains them all.
     */
    public synchronized long lagSeconds(GtidPosition replicaPosition, long nowNanos) {
        for (Iterator<Sample> it = primarySamples.iterator(); it.hasNext(); ) {
            Sample s = it.next();
            if (!replicaPosition.contains(s.position())) {
                return Math.max(0, (nowNanos - s.nanos()) / 1_000_000_000L);
            }
        }
        return 0;
    }

    /**
     * True when {@link #lagSeconds} is the replica's whole lag, not a lower bound: a primary position
     * has been seen and {@code position} contains the oldest one kept, so the first transaction it
     * lacks (if any) was first seen within the samples.
     */
    public synchronized boolean measures(GtidPosition position) {
        Sample first = primarySamples.peekFirst();
        return first != null && position.contains(first.position());
    }

    /** The newest primary position seen, if any. */
    public synchronized java.util.Optional<GtidPosition> latestPrimary() {
        Sample last = primarySamples.peekLast();
        return last == null ? java.util.Optional.empty() : java.util.Optional.of(last.position());
    }
}
