package dev.sluice.routing.readable;

import java.util.Arrays;

/**
 * Which replicas of one endpoint may take reads, per BEHAVIOUR §4, as node ids.
 *
 * <p>Two sets, because BEHAVIOUR §8 needs both: {@link #isReadable(int)} is the BEHAVIOUR §4 answer for the
 * endpoint's current weights (healthy replicas of weight above 0, plus the reserved ones);
 * {@link #passesHealthRules(int)} ignores weights, so a session that started when a node still
 * had weight keeps reading from it while it stays healthy. Computed by {@link ReadableRules} only
 * when the topology or the policy changes, never per statement. The primary is not part of
 * either set: whether it takes reads is a matter of its weight, not of replication health.
 */
public final class ReadableSet {

    /** No replica is readable: reads go to the primary. */
    public static final ReadableSet NONE = new ReadableSet(new int[0], new int[0]);

    private final int[] readable;
    private final int[] healthy;

    ReadableSet(int[] readable, int[] healthy) {
        this.readable = readable.clone();
        this.healthy = healthy.clone();
        Arrays.sort(this.readable);
        Arrays.sort(this.healthy);
    }

    /** BEHAVIOUR §4: a new read of a new session may go to this replica. */
    public boolean isReadable(int nodeId) {
        return Arrays.binarySearch(readable, nodeId) >= 0;
    }

    /** Within the lag threshold with replication running, reachable and not draining, whatever its weight. */
    public boolean passesHealthRules(int nodeId) {
        return Arrays.binarySearch(healthy, nodeId) >= 0;
    }

    /** Readable replica ids, ascending. */
    public int[] readableIds() {
        return readable.clone();
    }

    /** Readable replicas kept only because of {@code min-reserved-nodes}, ascending. */
    public int[] reservedIds() {
        return Arrays.stream(readable).filter(id -> !passesHealthRules(id)).toArray();
    }

    public boolean isEmpty() {
        return readable.length == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReadableSet other && Arrays.equals(readable, other.readable)
                && Arrays.equals(healthy, other.healthy);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(readable) + Arrays.hashCode(healthy);
    }

    @Override
    public String toString() {
        return "ReadableSet{readable=" + Arrays.toString(readable) + ", healthy=" + Arrays.toString(healthy) + "}";
    }
}
