package dev.sluice.server.frontend;

import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.NodeDirectory;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The node a session's first backend connection goes to (the login check, the first command that
 * needs no particular node): its replica on a read-only endpoint, else the primary — or, when the
 * primary is down, a readable replica, so that reads keep working (BEHAVIOUR §4).
 */
final class FirstNode {
    private FirstNode() {
    }

    /**
     * The node a new session logs in on. While a switchover holds the primary (BEHAVIOUR §10) a
     * read-write endpoint's session logs in on a readable replica: the old primary's connections
     * that do not belong to a session are ended when it is fenced, a login among them, and the
     * session's first command for the primary waits for the new one anyway.
     */
    static Optional<NodeRef> forLogin(EndpointRuntime endpoint, RoutingSession routing, NodeDirectory nodes,
            boolean primaryHeld) {
        if (primaryHeld && !endpoint.config().isReadOnly()) {
            int primary = endpoint.view().topology().primary().map(Node::id).orElse(-1);
            for (int id : endpoint.view().readable().readableIds()) {
                Optional<NodeRef> n = id == primary ? Optional.empty() : nodes.node(id);
                if (n.isPresent()) {
                    return n;
                }
            }
        }
        return of(endpoint, routing, nodes);
    }

    static Optional<NodeRef> of(EndpointRuntime endpoint, RoutingSession routing, NodeDirectory nodes) {
        if (endpoint.config().isReadOnly()) {
            OptionalInt r = routing.connectionReplica();
            return r.isPresent() ? nodes.node(r.getAsInt()) : Optional.empty();
        }
        Optional<Node> primary = endpoint.view().topology().primary();
        if (primary.isPresent() && (primary.get().state().reachable()
                || primary.get().state().equals(NodeState.UNMONITORED))) {
            return Optional.of(nodes.ref(primary.get()));
        }
        for (int id : endpoint.view().readable().readableIds()) {
            Optional<NodeRef> n = nodes.node(id);
            if (n.isPresent()) {
                return n;
            }
        }
        return primary.map(nodes::ref);
    }
}
