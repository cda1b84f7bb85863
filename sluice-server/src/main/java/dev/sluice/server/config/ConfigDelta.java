package dev.sluice.server.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What turns one running configuration into another: the nodes and endpoints to add, remove or
 * change. A change of configuration — made through the admin API, read from cluster mode's shared
 * configuration or from the configuration file again (SIGHUP) — is applied as its delta, so every
 * way applies a change the same way.
 *
 * <p>An endpoint whose listen address changes is removed and added again (it stops accepting on
 * the old address and starts on the new one). A node keeps its definition while it runs: a node
 * whose address, role, zone, capacity or TLS differ is refused (remove it and add it again).
 */
public record ConfigDelta(List<NodeConfig> nodesAdded, List<String> nodesRemoved, List<EndpointConfig> endpointsAdded,
        List<String> endpointsRemoved, List<EndpointConfig> endpointsChanged) {

    public ConfigDelta {
        nodesAdded = List.copyOf(nodesAdded);
        nodesRemoved = List.copyOf(nodesRemoved);
        endpointsAdded = List.copyOf(endpointsAdded);
        endpointsRemoved = List.copyOf(endpointsRemoved);
        endpointsChanged = List.copyOf(endpointsChanged);
    }

    /** The delta from {@code from} to {@code to}; a node changed in place is refused with a {@link ConfigException}. */
    public static ConfigDelta between(SluiceConfig from, SluiceConfig to) {
        Map<String, NodeConfig> oldNodes = byName(from.nodes(), NodeConfig::name);
        Map<String, NodeConfig> newNodes = byName(to.nodes(), NodeConfig::name);
        List<NodeConfig> nodesAdded = new ArrayList<>();
        for (NodeConfig n : to.nodes()) {
            Optional<NodeConfig> old = Optional.ofNullable(oldNodes.get(n.name()));
            if (old.isEmpty()) {
                nodesAdded.add(n);
            } else if (!old.get().equals(n)) {
                throw new ConfigException("nodes: node '" + n.name() + "' differs from the running one; a node's "
                        + "definition cannot change while it runs: remove it and add it again");
            }
        }
        List<String> nodesRemoved = from.nodes().stream().map(NodeConfig::name).filter(n -> !newNodes.containsKey(n))
                .toList();
        Map<String, EndpointConfig> oldEndpoints = byName(from.endpoints(), EndpointConfig::name);
        Map<String, EndpointConfig> newEndpoints = byName(to.endpoints(), EndpointConfig::name);
        List<EndpointConfig> added = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        List<EndpointConfig> changed = new ArrayList<>();
        for (EndpointConfig e : to.endpoints()) {
            EndpointConfig old = oldEndpoints.get(e.name());
            if (old == null) {
                added.add(e);
            } else if (!old.listen().equals(e.listen())) {
                removed.add(e.name());
                added.add(e);
            } else if (!old.equals(e)) {
                changed.add(e);
            }
        }
        from.endpoints().stream().map(EndpointConfig::name).filter(n -> !newEndpoints.containsKey(n))
                .forEach(removed::add);
        return new ConfigDelta(nodesAdded, nodesRemoved, added, removed, changed);
    }

    public boolean isEmpty() {
        return nodesAdded.isEmpty() && nodesRemoved.isEmpty() && endpointsAdded.isEmpty() && endpointsRemoved.isEmpty()
                && endpointsChanged.isEmpty();
    }

    private static <T> Map<String, T> byName(List<T> items, Function<T, String> name) {
        return items.stream().collect(Collectors.toMap(name, Function.identity()));
    }
}
