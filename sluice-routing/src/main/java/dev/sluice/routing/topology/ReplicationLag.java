package dev.sluice.routing.topology;

import java.time.Duration;

/**
 * How far a replica is behind, as the monitor last saw it ({@code Seconds_Behind_Master}).
 * Two sentinels keep "no number" out of band: {@link #BROKEN} (replication stopped or failing, the
 * server shows {@code NULL}) and {@link #UNKNOWN} (not measured yet). Only a known lag can be
 * within a threshold.
 *
 * @param seconds lag in seconds, or one of the negative sentinel values
 */
public record ReplicationLag(long seconds) {

    private static final long BROKEN_SECONDS = -1;
    private static final long UNKNOWN_SECONDS = -2;

    /** Replication is stopped or failing. */
    public static final ReplicationLag BROKEN = new ReplicationLag(BROKEN_SECONDS);
    /** The monitor has not measured this node yet. */
    public static final ReplicationLag UNKNOWN = new ReplicationLag(UNKNOWN_SECONDS);
    /** Fully caught up. */
    public static final ReplicationLag NONE = new ReplicationLag(0);

    public ReplicationLag {
        if (seconds < UNKNOWN_SECONDS) {
            throw new IllegalArgumentException("lag must be >= 0 seconds or a sentinel, got " + seconds);
        }
    }

    /** A measured lag; negative input means the measurement failed, i.e. {@link #BROKEN}. */
    public static ReplicationLag ofSeconds(long seconds) {
        return seconds < 0 ? BROKEN : new ReplicationLag(seconds);
    }

    public boolean isKnown() {
        return seconds >= 0;
    }

    public boolean isBroken() {
        return seconds == BROKEN_SECONDS;
    }

    /** True only for a known lag strictly above {@code threshold} (BEHAVIOUR §4: "exceeds"). */
    public boolean exceeds(Duration threshold) {
        return isKnown() && seconds > threshold.toSeconds();
    }

    @Override
    public String toString() {
        return isBroken() ? "broken" : isKnown() ? seconds + "s" : "unknown";
    }
}
