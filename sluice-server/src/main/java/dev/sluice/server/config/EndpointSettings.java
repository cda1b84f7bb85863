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
        return o;
    }

    /**
     * The endpoint {@code current} with {@code changes} applied, validated as the configuration
     * file would be. {@code name} cannot change.
     */
    public static EndpointConfig modified(EndpointConfig current, JsonNode changes, List<NodeConfig> nodes) {
        if (changes == null || !changes.isObject()) {
            throw new ConfigException("the change must be a JSON object of settings, e.g. {\"weights\": {\"ro1\": 0}}");
        }
        ObjectNode merged = toJson(current);
        for (Iterator<Map.Entry<String, JsonNode>> it = changes.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> c = it.next();
            if (c.getKey().equals("name") && !c.getValue().asText().equals(current.name())) {
                throw new ConfigException("name: an endpoint cannot be renamed; remove it and add a new one");
            }
            merged.set(c.getKey(), c.getValue());
        }
        return ConfigLoader.endpoint(merged, current.name(), nodes);
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
