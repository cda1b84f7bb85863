package dev.sluice.server.admin;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.ProxyRuntime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** DescribeDBProxy from the live runtime: a snapshot, read without stopping anything. */
final class ProxyDescriptions {
    private ProxyDescriptions() {
    }

    static ProxyDescription describe(ProxyRuntime runtime, String version, long uptimeSeconds) {
        List<EndpointRuntime> endpoints = new ArrayList<>(runtime.endpoints());
        endpoints.sort(Comparator.comparing(EndpointRuntime::name));
        List<EndpointDescription> eps = new ArrayList<>();
        for (EndpointRuntime e : endpoints) {
            var p = e.config().policy();
            eps.add(new EndpointDescription(e.name(), e.config().listen().toString(), p.mode().configName(),
                    p.balancer().configName(), p.consistency().configName(), e.activeSessions(), e.commands()));
        }
        List<NodeDescription> nodes = new ArrayList<>();
        for (Node n : runtime.topology().nodes()) {
            Map<String, NodeDescription.NodeLoad> load = new LinkedHashMap<>();
            for (EndpointRuntime e : endpoints) {
                EndpointView view = e.view();
                if (view.nodes().stream().noneMatch(v -> v.id() == n.id())) {
                    continue;
                }
                Node current = view.topology().node(n.id()).orElse(n);
                load.put(e.name(), new NodeDescription.NodeLoad(view.policy().weightOf(current),
                        !current.isPrimary() && view.readable().isReadable(n.id()), e.activeSessions(n.id()),
                        e.activeRequests(n.id()), e.statements(n.id())));
            }
            NodeState s = n.state();
            String state = s.equals(NodeState.UNMONITORED) ? "unknown" : s.reachable() ? "up" : "down";
            String replication = n.isPrimary() && !s.ioThreadRunning() && !s.sqlThreadRunning() ? "none"
                    : s.replicationBroken() ? "broken" : "running";
            Long lag = s.lag().isKnown() ? s.lag().seconds() : null;
            nodes.add(new NodeDescription(n.name(), n.address(), n.isPrimary() ? "primary" : "replica",
                    n.zone().orElse(null), n.capacity(), state, s.readOnly(), replication, lag,
                    s.position().map(Object::toString).orElse(null), n.draining(), load));
        }
        return new ProxyDescription(version, uptimeSeconds, eps, nodes);
    }
}
