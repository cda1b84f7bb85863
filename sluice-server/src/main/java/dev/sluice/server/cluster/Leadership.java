package dev.sluice.server.cluster;

import java.time.Duration;
import java.util.Optional;

/**
 * What this instance knows of the leader key (BEHAVIOUR §11) after its last campaign, and until when
 * it may act as leader. Pure.
 *
 * <p>The key lives under its holder's lease, so the holder is leader while etcd keeps that lease.
 * etcd counts a renewed lease's time to live from when the renewal reached it, never before it was
 * sent; so this instance counts from the moment it sent the renewal that the campaign followed, and
 * stops acting as leader {@link #GUARD} before the lease could have expired on etcd's side. Another
 * instance can take the key only once the lease has expired there: the two never both act.
 *
 * @param leader the holder's name; empty when no one holds the key or etcd did not answer
 * @param mine whether the key is held under this instance's lease
 * @param renewedAtNanos when the renewal (or grant) of this instance's lease was sent, {@link System#nanoTime()}
 */
record Leadership(Optional<String> leader, boolean mine, long renewedAtNanos) {
    /**
     * Taken off the lease's time to live: the time between reading {@link #leadingAt} and acting on
     * it, and clocks that run at slightly different rates on etcd's machine and this one.
     */
    static final Duration GUARD = Duration.ofSeconds(1);

    /** Nothing known: before the first campaign, and whenever etcd did not answer or the lease was lost. */
    static final Leadership UNKNOWN = new Leadership(Optional.empty(), false, 0);

    /**
     * After a campaign that found (or wrote) {@code key}; {@code ownLease} is this instance's lease,
     * renewed by a call sent at {@code renewedAtNanos}.
     */
    static Leadership afterCampaign(Optional<LeaderKey> key, long ownLease, long renewedAtNanos) {
        if (key.isEmpty()) {
            return UNKNOWN;
        }
        // By lease, not by name: an instance restarted under the same name holds a new lease, and the
        // key its former run wrote lives on under the old one until that expires.
        return new Leadership(Optional.of(key.get().holder()), ownLease != 0 && key.get().lease() == ownLease,
                renewedAtNanos);
    }

    /** Whether this instance may act as leader at {@code nowNanos}, with leases of {@code ttl}. */
    boolean leadingAt(long nowNanos, Duration ttl) {
        return mine && nowNanos - renewedAtNanos < ttl.minus(GUARD).toNanos();
    }

    /** The leader key as etcd holds it: the holder's name and the lease it lives under. */
    record LeaderKey(String holder, long lease) {
    }
}
