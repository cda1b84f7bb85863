package dev.sluice.server.switchover;

import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.runtime.ProxyRuntime;

/**
 * The switchover's changes to Sluice's topology. It writes what it has just made true on the
 * nodes, rather than waiting for the monitor to see it: the held writes are released right after,
 * and a write sent to a primary the topology still shows read-only is refused (1290).
 */
final class Roles {
    private Roles() {
    }

    /** {@code newPrimary} is the writable primary; {@code oldPrimary} a read-only replica of it, caught up. */
    static void swap(ProxyRuntime runtime, String oldPrimary, String newPrimary) {
        runtime.topologyHolder().update(t -> swapped(t, oldPrimary, newPrimary));
    }

    static Topology swapped(Topology t, String oldPrimary, String newPrimary) {
        Topology out = t.withNodeChanged(oldPrimary, n -> as(n, NodeRole.REPLICA, new NodeState(true, true, true, true,
                ReplicationLag.NONE, n.state().position())));
        return out.withNodeChanged(newPrimary, n -> as(n, NodeRole.PRIMARY, new NodeState(true, false, false, false,
                ReplicationLag.NONE, n.state().position())));
    }

    /**
     * After a failover: {@code newPrimary} is the writable primary; {@code oldPrimary}, gone, is a
     * replica that takes no traffic (draining) until it rejoins ({@link FormerPrimary}). Written
     * whatever the monitor's role follower did meanwhile: it may have seen the promotion first.
     */
    static void failedOver(ProxyRuntime runtime, String oldPrimary, String newPrimary) {
        runtime.topologyHolder().update(t -> t
                .withNodeChanged(oldPrimary, n -> as(n, NodeRole.REPLICA, n.state()))
                .withDraining(oldPrimary, true)
                .withNodeChanged(newPrimary, n -> as(n, NodeRole.PRIMARY, new NodeState(true, false, false, false,
                        ReplicationLag.NONE, n.state().position()))));
    }

    /** The switchover was called off after the primary was made read-only: it is writable again. */
    static void writable(ProxyRuntime runtime, String primary) {
        runtime.topologyHolder().update(t -> t.withNodeChanged(primary, n -> n.withState(new NodeState(
                n.state().reachable(), false, n.state().ioThreadRunning(), n.state().sqlThreadRunning(),
                n.state().lag(), n.state().position()))));
    }

    private static Node as(Node n, NodeRole role, NodeState state) {
        return new Node(n.id(), n.name(), n.address(), role, n.zone(), n.capacity(), state, n.draining());
    }
}
