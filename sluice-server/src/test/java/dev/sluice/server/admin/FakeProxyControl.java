package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.ConfigValues;
import dev.sluice.server.config.ConfigWriter;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.config.EndpointSettings;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.digest.DigestStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A test double of {@link ProxyControl}: an in-memory configuration, changed through the same
 * validation the real proxy uses ({@link EndpointSettings#modified}, {@link ConfigLoader}), with
 * load figures the test sets. It lets the HTTP layer and the CLI be tested without a cluster;
 * the real implementation has its own end-to-end tests.
 */
public final class FakeProxyControl implements ProxyControl {
    private final DigestStore digests;
    public static final String CONFIG = """
            monitor: {user: monitor, password: monitor, interval: 1s}
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312, role: replica, zone: a}
              - {name: ro2, address: 127.0.0.1:3313, role: replica}
            endpoints:
              - {name: rw, listen: 127.0.0.1:6033, mode: read-write}
              - {name: ro, listen: 127.0.0.1:6034, mode: read-only, nodes: [ro1, ro2]}
            admin: {listen: 127.0.0.1:0, token: ""}
            """;

    /** Per node and endpoint: the figures {@link #describe()} reports. */
    public record Load(int sessions, int requests, long statements) {
    }

    private SluiceConfig config;
    private final Set<String> draining = new HashSet<>();
    private final Set<String> down = new HashSet<>();
    private final Map<String, Load> loads = new HashMap<>();
    private Path persistTo;
    private int persists;
    private RuntimeException describeFailure;
    private Runnable onDescribe = () -> { };
    private dev.sluice.server.switchover.SwitchoverStatus switchover = dev.sluice.server.switchover.SwitchoverStatus.NONE;
    private dev.sluice.server.switchover.FailoverStatus failover = dev.sluice.server.switchover.FailoverStatus.NONE;

    public FakeProxyControl() {
        this(CONFIG);
    }

    /** A proxy started with this configuration (YAML). */
    public FakeProxyControl(String configYaml) {
        this.config = ConfigLoader.parse(configYaml);
        this.digests = new DigestStore(config.process().queryDigests());
    }

    public synchronized SluiceConfig config() {
        return config;
    }

    public synchronized void load(String node, String endpoint, Load load) {
        loads.put(node + "/" + endpoint, load);
    }

    public synchronized void down(String node) {
        down.add(node);
    }

    /** Where {@link #persist()} writes; without it, persist is refused as for a proxy started without a file. */
    public synchronized void persistTo(Path file) {
        this.persistTo = file;
    }

    public synchronized int persists() {
        return persists;
    }

    /** Makes {@link #describe()} fail like a bug would, until cleared with null. */
    public synchronized void failDescribe(RuntimeException failure) {
        this.describeFailure = failure;
    }

    /** What {@link #describe()} reports of the switchover and the failover. */
    public synchronized void roleChanges(dev.sluice.server.switchover.SwitchoverStatus switchover,
            dev.sluice.server.switchover.FailoverStatus failover) {
        this.switchover = switchover;
        this.failover = failover;
    }

    /** Runs {@code hook} at every {@link #describe()}, before the description is made (e.g. to move counters). */
    public synchronized void onDescribe(Runnable hook) {
        this.onDescribe = hook;
    }

    @Override
    public synchronized ProxyDescription describe() {
        if (describeFailure != null) {
            throw describeFailure;
        }
        onDescribe.run();
        List<EndpointDescription> endpoints = new ArrayList<>();
        for (EndpointConfig e : config.endpoints()) {
            int sessions = 0;
            long statements = 0;
            for (String n : e.policy().resolveNodes(topology()).stream().map(x -> x.name()).toList()) {
                Load l = loads.getOrDefault(n + "/" + e.name(), new Load(0, 0, 0));
                sessions += l.sessions();
                statements += l.statements();
            }
            endpoints.add(new EndpointDescription(e.name(), e.listen().toString(), e.policy().mode().configName(),
                    e.policy().balancer().configName(), e.policy().consistency().configName(), sessions, statements));
        }
        List<NodeDescription> nodes = new ArrayList<>();
        for (NodeConfig n : config.nodes()) {
            nodes.add(node(n));
        }
        return new ProxyDescription("0.1.0-test", 3725, endpoints, nodes, switchover, failover);
    }

    private Topology topology() {
        return ConfigLoader.topologyOf(config.nodes());
    }

    private NodeDescription node(NodeConfig n) {
        boolean primary = n.role() == NodeConfig.Role.PRIMARY;
        boolean up = !down.contains(n.name());
        Map<String, NodeDescription.NodeLoad> byEndpoint = new LinkedHashMap<>();
        var topologyNode = topology().node(n.name()).orElseThrow();
        for (EndpointConfig e : config.endpoints()) {
            if (e.policy().resolveNodes(topology()).stream().anyMatch(x -> x.name().equals(n.name()))) {
                int weight = e.policy().weightOf(topologyNode);
                Load l = loads.getOrDefault(n.name() + "/" + e.name(), new Load(0, 0, 0));
                byEndpoint.put(e.name(), new NodeDescription.NodeLoad(weight, up && weight > 0
                        && !draining.contains(n.name()), l.sessions(), l.requests(), l.statements()));
            }
        }
        return new NodeDescription(n.name(), n.address().toString(), primary ? "primary" : "replica",
                n.zone().orElse(null), n.capacity(), up ? "up" : "down", !primary, primary ? "none" : up ? "running"
                : "broken", primary || !up ? null : 1L, primary ? "0-1-1042" : "0-1-1041",
                draining.contains(n.name()), byEndpoint);
    }

    @Override
    public synchronized Optional<ObjectNode> describeEndpoint(String name) {
        return endpoint(name).map(EndpointSettings::toJson);
    }

    private Optional<EndpointConfig> endpoint(String name) {
        return config.endpoints().stream().filter(e -> e.name().equals(name)).findFirst();
    }

    @Override
    public synchronized ObjectNode modifyEndpoint(String name, JsonNode changes) {
        EndpointConfig current = endpoint(name).orElseThrow(() -> new AdminException(AdminException.NOT_FOUND,
                "no endpoint '" + name + "'"));
        EndpointConfig next = EndpointSettings.modified(current, changes, config.nodes());
        ConfigLoader.validate(next, config.nodes());
        replaceEndpoints(config.endpoints().stream().map(e -> e.name().equals(name) ? next : e).toList());
        return EndpointSettings.toJson(next);
    }

    @Override
    public synchronized ObjectNode addEndpoint(JsonNode definition) {
        EndpointConfig e = ConfigLoader.endpoint(definition, "endpoint", config.nodes());
        if (endpoint(e.name()).isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "endpoint '" + e.name() + "' exists already");
        }
        ConfigLoader.validate(e, config.nodes());
        List<EndpointConfig> all = new ArrayList<>(config.endpoints());
        all.add(e);
        replaceEndpoints(all);
        return EndpointSettings.toJson(e);
    }

    @Override
    public synchronized void removeEndpoint(String name) {
        endpoint(name).orElseThrow(() -> new AdminException(AdminException.NOT_FOUND, "no endpoint '" + name + "'"));
        replaceEndpoints(config.endpoints().stream().filter(e -> !e.name().equals(name)).toList());
    }

    @Override
    public synchronized NodeDescription addNode(JsonNode definition) {
        String name = definition.path("name").asText("");
        if (name.isEmpty() || !definition.hasNonNull("address")) {
            throw new AdminException(AdminException.BAD_REQUEST, "a node needs a name and an address");
        }
        if (config.node(name).isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "node '" + name + "' exists already");
        }
        String role = definition.path("role").asText("replica");
        if (role.equals("primary")) {
            throw new AdminException(AdminException.CONFLICT, "there is a primary already");
        }
        NodeConfig n = new NodeConfig(name, ConfigValues.hostPort("address", definition.get("address").asText()),
                NodeConfig.Role.REPLICA, Optional.ofNullable(definition.path("zone").textValue()),
                definition.path("capacity").asInt(1));
        List<NodeConfig> all = new ArrayList<>(config.nodes());
        all.add(n);
        config = new SluiceConfig(config.monitor(), all, config.endpoints(), config.admin(), config.users(),
                config.limits());
        return node(n);
    }

    @Override
    public synchronized void removeNode(String name) {
        NodeConfig n = config.node(name).orElseThrow(() -> new AdminException(AdminException.NOT_FOUND,
                "no node '" + name + "'"));
        if (n.role() == NodeConfig.Role.PRIMARY) {
            throw new AdminException(AdminException.CONFLICT, "node '" + name + "' is the primary");
        }
        List<NodeConfig> rest = config.nodes().stream().filter(x -> !x.name().equals(name)).toList();
        List<EndpointConfig> endpoints = config.endpoints().stream().map(e -> e.withPolicy(e.policy().withNodes(
                e.policy().nodes().stream().filter(x -> !x.equals(name)).toList()))).toList();
        config = new SluiceConfig(config.monitor(), rest, endpoints, config.admin(), config.users(), config.limits());
    }

    @Override
    public synchronized NodeDescription drainNode(String name) {
        NodeConfig n = config.node(name).orElseThrow(() -> new AdminException(AdminException.NOT_FOUND,
                "no node '" + name + "'"));
        draining.add(name);
        return node(n);
    }

    @Override
    public synchronized void persist() {
        if (persistTo == null) {
            throw new AdminException(AdminException.CONFLICT, "Sluice was not started from a configuration file");
        }
        try {
            ConfigWriter.write(config, persistTo);
        } catch (IOException e) {
            throw new ConfigException("cannot write " + persistTo + ": " + e.getMessage(), e);
        }
        persists++;
    }

    private void replaceEndpoints(List<EndpointConfig> endpoints) {
        config = new SluiceConfig(config.monitor(), config.nodes(), endpoints, config.admin(), config.users(),
                config.limits());
    }

    /** The switchover the next call answers with; a refusal when null. */
    private dev.sluice.server.switchover.SwitchoverOutcome nextSwitchover;
    private final List<Optional<String>> switchoverRequests = new java.util.ArrayList<>();

    public synchronized void answerSwitchover(dev.sluice.server.switchover.SwitchoverOutcome outcome) {
        this.nextSwitchover = outcome;
    }

    public synchronized List<Optional<String>> switchoverRequests() {
        return List.copyOf(switchoverRequests);
    }

    @Override
    public synchronized java.util.concurrent.CompletableFuture<dev.sluice.server.switchover.SwitchoverOutcome>
            switchover(Optional<String> to) {
        switchoverRequests.add(to);
        if (nextSwitchover == null) {
            return java.util.concurrent.CompletableFuture.failedFuture(
                    dev.sluice.server.switchover.SwitchoverException.refused("switchover refused: no replica can take over"));
        }
        return java.util.concurrent.CompletableFuture.completedFuture(nextSwitchover);
    }

    /** The failover the next call answers with; a refusal when null. */
    private dev.sluice.server.switchover.SwitchoverOutcome nextFailover;
    private final List<Optional<String>> failoverRequests = new java.util.ArrayList<>();

    public synchronized void answerFailover(dev.sluice.server.switchover.SwitchoverOutcome outcome) {
        this.nextFailover = outcome;
    }

    public synchronized List<Optional<String>> failoverRequests() {
        return List.copyOf(failoverRequests);
    }

    @Override
    public synchronized java.util.concurrent.CompletableFuture<dev.sluice.server.switchover.SwitchoverOutcome>
            failover(Optional<String> to) {
        failoverRequests.add(to);
        if (nextFailover != null) {
            return java.util.concurrent.CompletableFuture.completedFuture(nextFailover);
        }
        return java.util.concurrent.CompletableFuture.failedFuture(dev.sluice.server.switchover.SwitchoverException
                .refused("failover refused: the primary 'primary' is reachable: use switchover"));
    }

    @Override
    public DigestStore digests() {
        return digests;
    }
}
