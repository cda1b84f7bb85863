package dev.sluice.server.monitor;

import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;

/**
 * Turns an observation into the routing state of a node. Pure.
 *
 * <p>A replica's lag is the larger of {@code Seconds_Behind_Master} and the GTID-derived lag;
 * stopped or failing replication, or a NULL {@code Seconds_Behind_Master}, is "broken". A replica
 * whose I/O thread alone is down keeps its GTID-derived lag (its replication still counts as
 * broken): see {@code ReadableRules} for why that matters when the primary is down.
 *
 * <p>Where the GTID-derived lag is measured, not a lower bound (the replica holds the oldest
 * primary position the monitor keeps), it is the lag, whatever {@code Seconds_Behind_Master} says:
 * just after {@code START SLAVE} (a restart, or a former primary repointed by a switchover) the
 * server reports the age of the source's binary-log header, tens of seconds, until the SQL thread
 * applies a real event; on a busy source the replica is then never quite at the newest position.
 * Counting it would take a caught-up replica out of reads, or refuse a switchover back to it, for
 * no lag at all. {@code Seconds_Behind_Master} still counts for a replica behind every kept sample
 * (lagging longer than the samples reach, or checked before the primary was).
 */
final class StateInterpreter {
    private StateInterpreter() {
    }

    /**
     * @param gtidLagSeconds the GTID-derived lag ({@link GtidLagEstimator#lagSeconds})
     * @param gtidLagMeasured the GTID-derived lag is the whole lag ({@link GtidLagEstimator#measures})
     */
    static NodeState interpret(NodeObservation o, boolean asReplica, long gtidLagSeconds,
            boolean gtidLagMeasured) {
        if (!asReplica && !o.replicating()) {
            return new NodeState(true, o.readOnly(), false, false, ReplicationLag.NONE, o.position());
        }
        ReplicationLag lag;
        if (o.replicating() && o.sqlRunning() && !o.ioRunning() && o.position().isPresent()) {
            // No receiver, so Seconds_Behind_Master is NULL; what the replica applied can still be
            // measured against the primary's positions (it matters when the primary is down).
            lag = ReplicationLag.ofSeconds(gtidLagSeconds);
        } else if (!o.replicating() || !o.ioRunning() || !o.sqlRunning() || o.secondsBehind().isEmpty()) {
            lag = ReplicationLag.BROKEN;
        } else if (gtidLagMeasured) {
            lag = ReplicationLag.ofSeconds(gtidLagSeconds);
        } else {
            lag = ReplicationLag.ofSeconds(Math.max(o.secondsBehind().getAsLong(), gtidLagSeconds));
        }
        return new NodeState(true, o.readOnly(), o.ioRunning(), o.sqlRunning(), lag, o.position());
    }
}
