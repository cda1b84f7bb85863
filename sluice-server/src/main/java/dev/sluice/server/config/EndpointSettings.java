package dev.sluice.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An endpoint written back in its configuration form (kebab-case keys, {@code 10ms} durations):
 * what DescribeDBProxyEndpoint shows, what {@code --persist} writes, and the base a
 * ModifyDBProxyEndpoint change is merged into before it is validated like a file would be.
 */
public final class EndpointSettings {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private EndpointSettings() {
    }

    public static ObjectNode toJson(EndpointConfig e) {
        EndpointPolicy p = e.policy();
        ObjectNode o = JSON.objectNode();
        o.put("name", p.name());
        o.put("listen", e.listen().toString());
        o.put("mode", p.mode().configName());
        if (!p.nodes().isEmpty()) {
            o.set("nodes", strings(p.nodes()));
        }
        if (p.weights() instanceof ReadWeights.Custom custom) {
            ObjectNode w = o.putObject("weights");
            for (String n : p.nodes()) {
                w.put(n, custom.byNodeName().getOrDefault(n, 0));
            }
            // Nodes outside an explicit list (or all, with no list) in name order: stable output.
            for (Map.Entry<String, Integer> x : new java.util.TreeMap<>(custom.byNodeName()).entrySet()) {
                if (!w.has(x.getKey())) {
                    w.put(x.getKey(), x.getValue());
                }
            }
        } else {
            o.put("weights", "auto");
        }
        o.put("balancer", p.balancer().configName());
        o.put("consistency", p.consistency().configName());
        o.put("consistency-timeout", duration(p.consistencyTimeout()));
        o.put("consistency-timeout-action", p.timeoutAction().configName());
        o.put("max-replication-lag", duration(p.maxReplicationLag()));
        o.put("min-reserved-nodes", p.minReservedNodes());
        o.put("transaction-splitting", p.transactionSplitting());
        o.put("connection-pool", p.connectionPool().configName());
        o.set("allow", strings(p.allow()));
        o.put("max-connections", p.maxConnections());
        o.put("pool-max-connections", e.pool().maxConnectionsPerNode());
        o.put("pool-idle-timeout", duration(e.pool().idleTimeout()));
        o.put("pool-wait-timeout", duration(e.pool().waitTimeout()));
        if (e.requireTls()) {
            o.put("require-tls", true);
        }
        if (e.replay().enabled()) {
            o.put("transaction-replay", true);
        }
        if (e.replay().maxSize() != TransactionReplaySettings.DEFAULT_MAX_SIZE) {
            o.put("transaction-replay-max-size", e.replay().maxSize());
        }
        if (p.preferredZone().isPresent()) {
            o.put("prefer-same-zone", true);
        }
        return o;
    }

    /**
     * The endpoint {@code current} with {@code changes} applied, validated as the configuration
     * file would be. {@code name} cannot change. A key {@code weights.NODE} changes one node's read
     * weight and keeps the others (applied after a whole {@code weights} of the same change); from
     * {@code weights: auto}, the others keep the weight {@code auto} gave them.
     */
    public static EndpointConfig modified(EndpointConfig current, JsonNode changes, List<NodeConfig> nodes) {
        return modified(current, changes, nodes, Optional.empty());
    }

    /** The same, for a Sluice in {@code zone} (which {@code prefer-same-zone} needs). */
    public static EndpointConfig modified(EndpointConfig current, JsonNode changes, List<NodeConfig> nodes,
            Optional<String> zone) {
        if (changes == null || !changes.isObject()) {
            throw new ConfigException("the change must be a JSON object of settings, e.g. {\"weights\": {\"ro1\": 0}}");
        }
        ObjectNode merged = toJson(current);
        Map<String, JsonNode> oneWeight = new java.util.LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = changes.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> c = it.next();
            if (c.getKey().equals("name") && !c.getValue().asText().equals(current.name())) {
                throw new ConfigException("name: an endpoint cannot be renamed; remove it and add a new one");
            }
            if (c.getKey().startsWith(WEIGHT_OF)) {
                oneWeight.put(c.getKey().substring(WEIGHT_OF.length()), c.getValue());
            } else if (c.getKey().contains(".")) {
                throw new ConfigException(c.getKey() + ": only weights.NODE names a part of a setting; give "
                        + c.getKey().substring(0, c.getKey().indexOf('.')) + " whole");
            } else {
                merged.set(c.getKey(), c.getValue());
            }
        }
        if (!oneWeight.isEmpty()) {
            ObjectNode weights = explicitWeights(merged, current, nodes);
            oneWeight.forEach(weights::set);
            merged.set("weights", weights);
        }
        return ConfigLoader.endpoint(merged, current.name(), nodes, zone);
    }

    private static final String WEIGHT_OF = "weights.";

    /** The endpoint's weights as a map of every node, {@code auto} written out as it applies to each. */
    private static ObjectNode explicitWeights(ObjectNode merged, EndpointConfig current, List<NodeConfig> nodes) {
        JsonNode weights = merged.get("weights");
        if (weights != null && weights.isObject()) {
            return weights.deepCopy();
        }
        if (weights != null && !weights.asText().equals("auto")) {
            return JSON.objectNode();
        }
        ObjectNode out = JSON.objectNode();
        List<String> names = current.policy().nodes().isEmpty()
                ? nodes.stream().map(NodeConfig::name).toList() : current.policy().nodes();
        for (NodeConfig n : nodes) {
            if (names.contains(n.name())) {
                out.put(n.name(), ReadWeights.Auto.weightOf(n.role() == NodeConfig.Role.PRIMARY, n.capacity()));
            }
        }
        return out;
    }

    /** Durations in the shortest exact unit, as a person would write them. */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    private static JsonNode strings(List<String> values) {
        var a = JSON.arrayNode();
        values.forEach(a::add);
        return a;
    }
}
