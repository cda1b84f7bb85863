package dev.sluice.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What a configuration file read again asks of the running proxy (BEHAVIOUR §13, SIGHUP), worked
 * out before anything is touched. The parts the admin API can change while running — nodes added
 * and removed, endpoints added, removed and modified — make the {@code target} configuration, which
 * is run as an admin change is run (its {@link ConfigDelta} from the running one); a difference the
 * API would refuse ({@code listen} of a running endpoint, a new primary, removing the primary,
 * Sluice's own {@code zone}) refuses the whole file; sections read only at start ({@code monitor},
 * {@code admin}, {@code users}, {@code limits}, {@code tls}, {@code replication}, {@code cluster},
 * {@code shutdown-timeout}, {@code log-format}) and a changed node — its role too: a switchover
 * moves the primary, not a file — are named as waiting for a restart, and left as they run: the
 * target keeps their running values.
 *
 * <p>The target keeps the running order of nodes and endpoints and adds the new ones after them in
 * the file's order, as adding them one by one through the admin API would.
 *
 * @param target the running configuration with every change the file may make live
 * @param delta what running the target adds, removes and reconfigures
 * @param settingChanges for each modified endpoint, {@code key: old -> new} per setting that differs
 */
public record ConfigChanges(SluiceConfig target, ConfigDelta delta, List<String> settingChanges,
        List<String> restartOnly, List<String> refusals) {

    public ConfigChanges {
        settingChanges = List.copyOf(settingChanges);
        restartOnly = List.copyOf(restartOnly);
        refusals = List.copyOf(refusals);
    }

    /** From the configuration Sluice runs with to the one in the file. */
    public static ConfigChanges between(SluiceConfig running, SluiceConfig file) {
        List<String> refusals = new ArrayList<>();
        List<String> restartOnly = new ArrayList<>();
        sections(running, file, restartOnly);
        if (!running.zone().equals(file.zone())) {
            refusals.add("zone: Sluice's own zone (" + running.zone().orElse("none") + " -> "
                    + file.zone().orElse("none") + ") changes only at a restart, and the endpoints that prefer it "
                    + "would disagree with it until then");
        }

        // A node the file changes keeps its running definition: ConfigDelta refuses a node changed in place.
        List<NodeConfig> nodes = new ArrayList<>();
        running.nodes().stream().filter(n -> file.node(n.name()).isPresent()).forEach(nodes::add);
        for (NodeConfig n : file.nodes()) {
            Optional<NodeConfig> before = running.node(n.name());
            if (before.isEmpty()) {
                if (n.role() == NodeConfig.Role.PRIMARY) {
                    refusals.add("node '" + n.name() + "': a new node cannot be the primary; a switchover moves "
                            + "the primary");
                }
                nodes.add(n);
            } else if (!before.get().equals(n)) {
                restartOnly.add("node '" + n.name() + "' (" + String.join(", ", nodeDifferences(before.get(), n))
                        + ")");
            }
        }
        for (NodeConfig n : running.nodes()) {
            if (file.node(n.name()).isEmpty() && n.role() == NodeConfig.Role.PRIMARY) {
                refusals.add("node '" + n.name() + "' is the primary; it cannot be removed");
            }
        }

        List<EndpointConfig> addedEndpoints = new ArrayList<>();
        Map<String, EndpointConfig> modified = new HashMap<>();
        List<String> settingChanges = new ArrayList<>();
        for (EndpointConfig e : file.endpoints()) {
            Optional<EndpointConfig> before = endpoint(running, e.name());
            if (before.isEmpty()) {
                addedEndpoints.add(e);
                continue;
            }
            List<String> differences = settingDifferences(EndpointSettings.toJson(before.get()),
                    EndpointSettings.toJson(e));
            if (differences.isEmpty()) {
                continue;
            }
            if (!before.get().listen().equals(e.listen())) {
                refusals.add("endpoint '" + e.name() + "': listen cannot change while it runs (" + before.get().listen()
                        + " -> " + e.listen() + "); give the new address to a new endpoint and remove this one");
            }
            modified.put(e.name(), e);
            settingChanges.add("endpoint '" + e.name() + "': " + String.join(", ", differences));
        }
        List<EndpointConfig> endpoints = new ArrayList<>();
        for (EndpointConfig before : running.endpoints()) {
            if (endpoint(file, before.name()).isPresent()) {
                endpoints.add(modified.getOrDefault(before.name(), before));
            }
        }
        endpoints.addAll(addedEndpoints);
        SluiceConfig target = running.with(List.copyOf(nodes), List.copyOf(endpoints));
        return new ConfigChanges(target, ConfigDelta.between(running, target), settingChanges, restartOnly, refusals);
    }

    /** Whether the file asks for nothing that can be applied (it may still name restart-only differences). */
    public boolean nothingToApply() {
        return delta.isEmpty();
    }

    /** What will change, for the log: one clause per node or endpoint added, modified or removed. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        delta.nodesAdded().forEach(n -> out.add("node '" + n.name() + "' added at " + n.address()));
        delta.endpointsAdded().forEach(e -> out.add("endpoint '" + e.name() + "' added on " + e.listen()));
        out.addAll(settingChanges);
        delta.endpointsRemoved().forEach(e -> out.add("endpoint '" + e + "' removed"));
        delta.nodesRemoved().forEach(n -> out.add("node '" + n + "' removed"));
        return out;
    }

    private static Optional<EndpointConfig> endpoint(SluiceConfig config, String name) {
        return config.endpoints().stream().filter(e -> e.name().equals(name)).findFirst();
    }

    private static void sections(SluiceConfig running, SluiceConfig file, List<String> restartOnly) {
        section("monitor", running, file, SluiceConfig::monitor, restartOnly);
        section("admin", running, file, SluiceConfig::admin, restartOnly);
        section("users", running, file, SluiceConfig::users, restartOnly);
        section("limits", running, file, SluiceConfig::limits, restartOnly);
        section("tls", running, file, SluiceConfig::tls, restartOnly);
        section("replication", running, file, SluiceConfig::replication, restartOnly);
        section("cluster", running, file, SluiceConfig::cluster, restartOnly);
        section("shutdown-timeout", running, file, c -> c.process().shutdownTimeout(), restartOnly);
        section("log-format", running, file, c -> c.process().logFormat(), restartOnly);
        section("query-digests", running, file, c -> c.process().queryDigests(), restartOnly);
    }

    private static void section(String name, SluiceConfig running, SluiceConfig file,
            Function<SluiceConfig, Object> part, List<String> restartOnly) {
        if (!Objects.equals(part.apply(running), part.apply(file))) {
            restartOnly.add(name);
        }
    }

    private static List<String> nodeDifferences(NodeConfig a, NodeConfig b) {
        List<String> out = new ArrayList<>();
        if (!a.address().equals(b.address())) {
            out.add("address");
        }
        if (!a.zone().equals(b.zone())) {
            out.add("zone");
        }
        if (a.capacity() != b.capacity()) {
            out.add("capacity");
        }
        if (a.tls() != b.tls() || !a.tlsCa().equals(b.tlsCa())) {
            out.add("tls");
        }
        if (a.role() != b.role()) {
            // The running role is where the primary is now (a switchover, a failover or a change Sluice
            // followed moved it); at a start the file's roles are read and the monitor follows the primary.
            out.add("role: " + b.role().name().toLowerCase(java.util.Locale.ROOT) + " in the file, "
                    + a.role().name().toLowerCase(java.util.Locale.ROOT) + " running");
        }
        return out;
    }

    /** {@code key: old -> new} for each setting that differs, in the settings' own order. */
    static List<String> settingDifferences(ObjectNode before, ObjectNode after) {
        Set<String> keys = new LinkedHashSet<>();
        before.fieldNames().forEachRemaining(keys::add);
        after.fieldNames().forEachRemaining(keys::add);
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            JsonNode a = before.get(k);
            JsonNode b = after.get(k);
            if (!Objects.equals(a, b)) {
                out.add(k + ": " + text(a) + " -> " + text(b));
            }
        }
        return out;
    }

    private static String text(JsonNode v) {
        if (v == null) {
            return "(default)";
        }
        if (!v.isObject()) {
            return v.isTextual() ? v.asText() : v.toString();
        }
        StringBuilder b = new StringBuilder("{");
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            b.append(f.getKey()).append(": ").append(text(f.getValue())).append(it.hasNext() ? ", " : "");
        }
        return b.append('}').toString();
    }
}
