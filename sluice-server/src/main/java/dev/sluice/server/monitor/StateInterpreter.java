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
 */
final class StateInterpreter {
    private StateInterpreter() {
    }

    static NodeState interpret(NodeObservation o, boolean asReplica, long gtidLagSeconds) {
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
        } else {
            lag = ReplicationLag.ofSeconds(Math.max(o.secondsBehind().getAsLong(), gtidLagSeconds));
        }
        return new NodeState(true, o.readOnly(), o.ioRunning(), o.sqlRunning(), lag, o.position());
    }
}
