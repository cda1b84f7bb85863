package dev.sluice.routing.topology;

import dev.sluice.routing.gtid.GtidPosition;
import java.util.Optional;

/**
 * What the monitor last observed about one node (BEHAVIOUR §4). Immutable: the monitor publishes a new
 * {@link Topology} with a new state rather than editing this one, so a router reading a snapshot
 * never sees half an update.
 *
 * @param reachable        the last check connected and ran its queries
 * @param readOnly         {@code @@read_only}
 * @param ioThreadRunning  the replica's I/O (receiver) thread runs
 * @param sqlThreadRunning the replica's SQL (applier) thread runs
 * @param lag              replication lag, or a sentinel
 * @param position         the GTID position applied, when known
 */
public record NodeState(boolean reachable, boolean readOnly, boolean ioThreadRunning,
                        boolean sqlThreadRunning, ReplicationLag lag, Optional<GtidPosition> position) {

    /** Before the first check: nothing is known, so the node takes no reads. */
    public static final NodeState UNMONITORED =
            new NodeState(false, false, false, false, ReplicationLag.UNKNOWN, Optional.empty());

    /** A reachable primary. */
    public static NodeState primary(GtidPosition position) {
        return new NodeState(true, false, false, false, ReplicationLag.NONE, Optional.of(position));
    }

    /** A reachable, replicating replica with the given lag and position. */
    public static NodeState replica(ReplicationLag lag, GtidPosition position) {
        boolean running = !lag.isBroken();
        return new NodeState(true, true, running, running, lag, Optional.of(position));
    }

    /** A reachable, replicating replica whose position is not known. */
    public static NodeState replica(ReplicationLag lag) {
        boolean running = !lag.isBroken();
        return new NodeState(true, true, running, running, lag, Optional.empty());
    }

    /** Replication is stopped or failing: a thread is down or the lag is {@code NULL}. */
    public boolean replicationBroken() {
        return !ioThreadRunning || !sqlThreadRunning || lag.isBroken();
    }

    public NodeState withReachable(boolean value) {
        return new NodeState(value, readOnly, ioThreadRunning, sqlThreadRunning, lag, position);
    }

    public NodeState withLag(ReplicationLag value) {
        return new NodeState(reachable, readOnly, ioThreadRunning, sqlThreadRunning, value, position);
    }

    public NodeState withPosition(GtidPosition value) {
        return new NodeState(reachable, readOnly, ioThreadRunning, sqlThreadRunning, lag, Optional.of(value));
    }

    public NodeState withReplicationThreads(boolean io, boolean sql) {
        return new NodeState(reachable, readOnly, io, sql, lag, position);
    }
}
