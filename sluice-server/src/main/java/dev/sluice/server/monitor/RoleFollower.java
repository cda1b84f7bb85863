package dev.sluice.server.monitor;

import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.Topology;
import java.util.List;
import java.util.Optional;

/**
 * Follows a switchover or failover done outside Sluice (by an operator or an orchestrator): when
 * the node Sluice treats as primary is read-only or unreachable and exactly one replica is
 * reachable and writable, that replica becomes the primary and the old primary a replica. With
 * zero or several writable replicas nothing changes — guessing would risk split writes. A draining
 * node is never followed: an operator is taking it out, or it is a failover's old primary, back
 * with its own configuration's read_only = 0 and writes no replica has. Pure. In cluster mode an
 * instance also follows a move the leader wrote into the shared configuration ({@link #promote}).
 */
public final class RoleFollower {
    private RoleFollower() {
    }

    /** The node that should now be primary, if it is not the current one. */
    static Optional<Node> newPrimary(Topology t) {
        Optional<Node> primary = t.primary();
        if (primary.isPresent() && primary.get().state().reachable() && !primary.get().state().readOnly()) {
            return Optional.empty();
        }
        List<Node> writable = t.nodes().stream()
                .filter(n -> !n.isPrimary() && !n.draining() && n.state().reachable() && !n.state().readOnly())
                .toList();
        return writable.size() == 1 ? Optional.of(writable.get(0)) : Optional.empty();
    }

    /** Swaps the roles of the old primary (if any) and {@code promoted}. */
    public static Topology promote(Topology t, Node promoted) {
        Topology out = t;
        Optional<Node> old = t.primary();
        if (old.isPresent()) {
            out = out.withNodeChanged(old.get().name(), n -> withRole(n, NodeRole.REPLICA));
        }
        return out.withNodeChanged(promoted.name(), n -> withRole(n, NodeRole.PRIMARY));
    }

    private static Node withRole(Node n, NodeRole role) {
        return new Node(n.id(), n.name(), n.address(), role, n.zone(), n.capacity(), n.state(), n.draining());
    }
}
