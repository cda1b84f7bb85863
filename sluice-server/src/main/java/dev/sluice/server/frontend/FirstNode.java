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
