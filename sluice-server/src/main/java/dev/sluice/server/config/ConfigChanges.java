package dev.sluice.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
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
 * and removed, endpoints added, removed and modified — become the admin operations to make, in
 * that API's terms; a difference the API would refuse ({@code listen} of a running endpoint, a new
 * primary, removing the primary, Sluice's own {@code zone}) refuses the whole file; sections read
 * only at start ({@code monitor}, {@code admin}, {@code users}, {@code limits}, {@code tls},
 * {@code replication}, {@code shutdown-timeout}, {@code log-format}) and a changed node are named as
 * waiting for a restart, and left as they run.
 *
 * @param modifiedEndpoints endpoints whose settings differ, as the file gives them whole
 * @param settingChanges for each modified endpoint, {@code key: old -> new} per setting that differs
 */
public record ConfigChanges(List<NodeConfig> addedNodes, List<String> removedNodes,
        List<EndpointConfig> addedEndpoints, List<String> removedEndpoints, List<EndpointConfig> modifiedEndpoints,
        List<String> settingChanges, List<String> restartOnly, List<String> refusals) {

    public ConfigChanges {
        addedNodes = List.copyOf(addedNodes);
        removedNodes = List.copyOf(removedNodes);
        addedEndpoints = List.copyOf(addedEndpoints);
        removedEndpoints = List.copyOf(removedEndpoints);
        modifiedEndpoints = List.copyOf(modifiedEndpoints);
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

        List<NodeConfig> addedNodes = new ArrayList<>();
        for (NodeConfig n : file.nodes()) {
            Optional<NodeConfig> before = running.node(n.name());
            if (before.isEmpty()) {
                if (n.role() == NodeConfig.Role.PRIMARY) {
                    refusals.add("node '" + n.name() + "': a new node cannot be the primary; a switchover moves "
                            + "the primary");
                }
                addedNodes.add(n);
            } else if (!before.get().equals(n)) {
                if (before.get().role() != n.role()) {
                    refusals.add("node '" + n.name() + "': its role cannot change in the file while Sluice runs; "
                            + "a switchover moves the primary");
                } else {
                    restartOnly.add("node '" + n.name() + "' (" + String.join(", ", nodeDifferences(before.get(), n))
                            + ")");
                }
            }
        }
        List<String> removedNodes = new ArrayList<>();
        for (NodeConfig n : running.nodes()) {
            if (file.node(n.name()).isEmpty()) {
                if (n.role() == NodeConfig.Role.PRIMARY) {
                    refusals.add("node '" + n.name() + "' is the primary; it cannot be removed");
                }
                removedNodes.add(n.name());
            }
        }

        List<EndpointConfig> addedEndpoints = new ArrayList<>();
        List<EndpointConfig> modified = new ArrayList<>();
        List<String> settingChanges = new ArrayList<>();
        for (EndpointConfig e : file.endpoints()) {
            Optional<EndpointConfig> before = running.endpoints().stream().filter(r -> r.name().equals(e.name()))
                    .findFirst();
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
            modified.add(e);
            settingChanges.add("endpoint '" + e.name() + "': " + String.join(", ", differences));
        }
        List<String> removedEndpoints = running.endpoints().stream().map(EndpointConfig::name)
                .filter(name -> file.endpoints().stream().noneMatch(e -> e.name().equals(name))).toList();
        return new ConfigChanges(addedNodes, removedNodes, addedEndpoints, removedEndpoints, modified, settingChanges,
                restartOnly, refusals);
    }

    /** Whether the file asks for nothing that can be applied (it may still name restart-only differences). */
    public boolean nothingToApply() {
        return addedNodes.isEmpty() && removedNodes.isEmpty() && addedEndpoints.isEmpty() && removedEndpoints.isEmpty()
                && modifiedEndpoints.isEmpty();
    }

    /** What will change, for the log: one clause per operation. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        addedNodes.forEach(n -> out.add("node '" + n.name() + "' added at " + n.address()));
        addedEndpoints.forEach(e -> out.add("endpoint '" + e.name() + "' added on " + e.listen()));
        out.addAll(settingChanges);
        removedEndpoints.forEach(e -> out.add("endpoint '" + e + "' removed"));
        removedNodes.forEach(n -> out.add("node '" + n + "' removed"));
        return out;
    }

    private static void sections(SluiceConfig running, SluiceConfig file, List<String> restartOnly) {
        section("monitor", running, file, SluiceConfig::monitor, restartOnly);
        section("admin", running, file, SluiceConfig::admin, restartOnly);
        section("users", running, file, SluiceConfig::users, restartOnly);
        section("limits", running, file, SluiceConfig::limits, restartOnly);
        section("tls", running, file, SluiceConfig::tls, restartOnly);
        section("replication", running, file, SluiceConfig::replication, restartOnly);
        section("shutdown-timeout", running, file, c -> c.process().shutdownTimeout(), restartOnly);
        section("log-format", running, file, c -> c.process().logFormat(), restartOnly);
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
