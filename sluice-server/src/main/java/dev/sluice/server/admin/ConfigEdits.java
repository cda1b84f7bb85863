package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.config.EndpointSettings;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SluiceConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The admin API's changes as functions from one configuration to the next, validated as the
 * configuration file would be; nothing here touches the running proxy. A refused change throws
 * {@link AdminException} with the status to answer. The same edit serves a single instance (applied
 * at once) and cluster mode (made on the shared configuration read from etcd, written back there).
 */
public final class ConfigEdits {
    private ConfigEdits() {
    }

    public static SluiceConfig modifyEndpoint(SluiceConfig config, String name, JsonNode changes) {
        EndpointConfig endpoint = endpoint(config, name);
        EndpointConfig changed = validated(() -> checked(config, EndpointSettings.modified(endpoint, changes,
                config.nodes(), config.zone())));
        if (!changed.listen().equals(endpoint.listen())) {
            throw new AdminException(AdminException.BAD_REQUEST, "listen: an endpoint's address cannot change while "
                    + "it runs; add a new endpoint and remove this one");
        }
        List<EndpointConfig> endpoints = new ArrayList<>();
        for (EndpointConfig e : config.endpoints()) {
            endpoints.add(e.name().equals(name) ? changed : e);
        }
        return config.with(config.nodes(), List.copyOf(endpoints));
    }

    public static SluiceConfig addEndpoint(SluiceConfig config, JsonNode definition) {
        if (definition == null || !definition.isObject() || !definition.has("name")) {
            throw new AdminException(AdminException.BAD_REQUEST, "an endpoint needs at least name and listen");
        }
        String name = definition.get("name").asText();
        if (config.endpoints().stream().anyMatch(e -> e.name().equals(name))) {
            throw new AdminException(AdminException.CONFLICT, "endpoint '" + name + "' already exists");
        }
        EndpointConfig added = validated(() -> checked(config, ConfigLoader.endpoint(definition, "endpoint " + name,
                config.nodes(), config.zone())));
        List<EndpointConfig> endpoints = new ArrayList<>(config.endpoints());
        endpoints.add(added);
        return config.with(config.nodes(), List.copyOf(endpoints));
    }

    public static SluiceConfig removeEndpoint(SluiceConfig config, String name) {
        endpoint(config, name);
        List<EndpointConfig> endpoints = new ArrayList<>(config.endpoints());
        endpoints.removeIf(e -> e.name().equals(name));
        return config.with(config.nodes(), List.copyOf(endpoints));
    }

    /** Adds a node; {@code topology} says which node is the primary now (a switchover may have moved it). */
    public static SluiceConfig addNode(SluiceConfig config, Topology topology, JsonNode definition) {
        NodeConfig node = validated(() -> NodeDefinitions.parse(definition));
        if (config.node(node.name()).isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "node '" + node.name() + "' already exists");
        }
        if (node.role() == NodeConfig.Role.PRIMARY && topology.primary().isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "the cluster already has a primary ('"
                    + topology.primary().get().name() + "'); add the node as a replica");
        }
        List<NodeConfig> nodes = new ArrayList<>(config.nodes());
        nodes.add(node);
        return config.with(List.copyOf(nodes), config.endpoints());
    }

    public static SluiceConfig removeNode(SluiceConfig config, Topology topology, String name) {
        if (config.node(name).isEmpty()) {
            throw new AdminException(AdminException.NOT_FOUND, "no node '" + name + "'");
        }
        if (topology.node(name).map(n -> n.isPrimary()).orElse(false)) {
            throw new AdminException(AdminException.CONFLICT, "'" + name + "' is the primary; it cannot be removed");
        }
        List<NodeConfig> nodes = new ArrayList<>(config.nodes());
        nodes.removeIf(n -> n.name().equals(name));
        List<EndpointConfig> endpoints = new ArrayList<>();
        for (EndpointConfig e : config.endpoints()) {
            EndpointConfig updated = withoutNode(e, name);
            validated(() -> {
                ConfigLoader.validate(updated, nodes);
                return updated;
            });
            endpoints.add(updated);
        }
        return config.with(List.copyOf(nodes), List.copyOf(endpoints));
    }

    /**
     * {@code e} without the node {@code name}: out of its node list and out of its weight map. A
     * weight left behind for a node that no longer exists would fail validation, so a node with a
     * custom weight (the 0 of a graceful decommission, typically) could never be removed.
     */
    private static EndpointConfig withoutNode(EndpointConfig e, String name) {
        List<String> names = new ArrayList<>(e.policy().nodes());
        boolean listed = names.remove(name);
        ReadWeights weights = e.policy().weights();
        boolean weighted = weights instanceof ReadWeights.Custom c && c.byNodeName().containsKey(name);
        if (weighted) {
            Map<String, Integer> rest = new HashMap<>(((ReadWeights.Custom) weights).byNodeName());
            rest.remove(name);
            weights = new ReadWeights.Custom(rest);
        }
        return listed || weighted ? e.withPolicy(e.policy().withNodes(names).withWeights(weights)) : e;
    }

    /** An endpoint's settings in {@code config}, as DescribeDBProxyEndpoint answers them. */
    public static com.fasterxml.jackson.databind.node.ObjectNode settings(SluiceConfig config, String name) {
        return EndpointSettings.toJson(endpoint(config, name));
    }

    private static EndpointConfig endpoint(SluiceConfig config, String name) {
        return config.endpoints().stream().filter(e -> e.name().equals(name)).findFirst()
                .orElseThrow(() -> new AdminException(AdminException.NOT_FOUND, "no endpoint '" + name + "'"));
    }

    /**
     * The routing rules' own checks, as the file gets them (a read-write endpoint needs the primary
     * and a replica): parsing an endpoint alone does not make them, and a change that passed
     * without them would leave a live endpoint that cannot route.
     */
    private static EndpointConfig checked(SluiceConfig config, EndpointConfig e) {
        ConfigLoader.validate(e, config.nodes());
        return e;
    }

    private static <T> T validated(Supplier<T> parse) {
        try {
            return parse.get();
        } catch (ConfigException | IllegalArgumentException e) {
            throw new AdminException(AdminException.BAD_REQUEST, e.getMessage());
        }
    }
}
