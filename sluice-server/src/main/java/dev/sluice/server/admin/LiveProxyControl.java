package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.ConfigWriter;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.config.EndpointSettings;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.digest.DigestStore;
import dev.sluice.server.runtime.EndpointLifecycle;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.ProxyRuntime;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin operations on the running proxy. Every change is validated as the configuration file
 * would be, then applied at once: the endpoint's routing view is rebuilt (new sessions see new
 * weights; existing sessions keep the node set and weights they started with — BEHAVIOUR §8), the
 * topology snapshot is replaced, listeners start or stop. Calls come from the admin server's
 * single thread, so changes never interleave.
 */
public final class LiveProxyControl implements ProxyControl {
    private static final Logger LOG = LoggerFactory.getLogger(LiveProxyControl.class);
    private static final String VERSION = "0.1.0";

    private final ProxyRuntime runtime;
    private final EndpointLifecycle lifecycle;
    private final Optional<Path> configFile;
    private final long startedNanos = System.nanoTime();

    private final dev.sluice.server.switchover.Switchovers switchovers;
    private final dev.sluice.server.switchover.Failovers failovers;

    public LiveProxyControl(ProxyRuntime runtime, EndpointLifecycle lifecycle, Optional<Path> configFile,
            dev.sluice.server.switchover.Switchovers switchovers, dev.sluice.server.switchover.Failovers failovers) {
        this.switchovers = switchovers;
        this.failovers = failovers;
        this.runtime = runtime;
        this.lifecycle = lifecycle;
        this.configFile = configFile;
    }

    @Override
    public ProxyDescription describe() {
        ProxyDescription d = ProxyDescriptions.describe(runtime, VERSION,
                (System.nanoTime() - startedNanos) / 1_000_000_000L);
        Optional<String> diverged = failovers.diverged();
        List<NodeDescription> nodes = diverged.isEmpty() ? d.nodes() : d.nodes().stream()
                .map(n -> n.name().equals(diverged.get()) && n.state().equals("up") ? asDiverged(n) : n).toList();
        return new ProxyDescription(d.version(), d.uptimeSeconds(), d.endpoints(), nodes, switchovers.status(),
                failovers.status());
    }

    /** A failover's old primary that came back with commits the new primary lacks (BEHAVIOUR §10). */
    private static NodeDescription asDiverged(NodeDescription n) {
        return new NodeDescription(n.name(), n.address(), n.role(), n.zone(), n.capacity(), "diverged", n.readOnly(),
                n.replication(), n.lagSeconds(), n.gtidPosition(), n.draining(), n.endpoints());
    }

    @Override
    public Optional<ObjectNode> describeEndpoint(String name) {
        return runtime.endpoint(name).map(e -> EndpointSettings.toJson(e.config()));
    }

    @Override
    public synchronized ObjectNode modifyEndpoint(String name, JsonNode changes) {
        EndpointRuntime endpoint = runtime.endpoint(name)
                .orElseThrow(() -> new AdminException(AdminException.NOT_FOUND, "no endpoint '" + name + "'"));
        EndpointConfig changed = validated(() -> checked(EndpointSettings.modified(endpoint.config(), changes,
                runtime.config().nodes(), runtime.config().zone())));
        replaceEndpoint(endpoint, changed);
        LOG.info("endpoint '{}' modified: {}", name, changes);
        return EndpointSettings.toJson(changed);
    }

    /**
     * ModifyDBProxyEndpoint given the endpoint's whole new settings (a reloaded configuration file),
     * checked and applied as {@link #modifyEndpoint} does.
     */
    synchronized void modifyEndpoint(EndpointConfig changed) {
        EndpointRuntime endpoint = runtime.endpoint(changed.name()).orElseThrow(() -> new AdminException(
                AdminException.NOT_FOUND, "no endpoint '" + changed.name() + "'"));
        replaceEndpoint(endpoint, validated(() -> checked(changed)));
    }

    private void replaceEndpoint(EndpointRuntime endpoint, EndpointConfig changed) {
        if (!changed.listen().equals(endpoint.config().listen())) {
            throw new AdminException(AdminException.BAD_REQUEST, "listen: an endpoint's address cannot change while "
                    + "it runs; add a new endpoint and remove this one");
        }
        endpoint.reconfigure(changed, runtime.topology());
        replaceEndpointInConfig(changed);
    }

    @Override
    public synchronized ObjectNode addEndpoint(JsonNode definition) {
        if (definition == null || !definition.isObject() || !definition.has("name")) {
            throw new AdminException(AdminException.BAD_REQUEST, "an endpoint needs at least name and listen");
        }
        String name = definition.get("name").asText();
        if (runtime.endpoint(name).isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "endpoint '" + name + "' already exists");
        }
        EndpointConfig config = validated(() -> checked(ConfigLoader.endpoint(definition, "endpoint " + name,
                runtime.config().nodes(), runtime.config().zone())));
        return EndpointSettings.toJson(addEndpoint(config));
    }

    /** Adds an endpoint given as its configuration (a reloaded file), checked as {@link #addEndpoint(JsonNode)} does. */
    synchronized EndpointConfig addEndpoint(EndpointConfig config) {
        String name = config.name();
        if (runtime.endpoint(name).isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "endpoint '" + name + "' already exists");
        }
        validated(() -> checked(config));
        try {
            lifecycle.start(config);
        } catch (RuntimeException e) {
            throw new AdminException(AdminException.CONFLICT, "endpoint '" + name + "' cannot listen on "
                    + config.listen() + ": " + e.getMessage());
        }
        List<EndpointConfig> endpoints = new ArrayList<>(runtime.config().endpoints());
        endpoints.add(config);
        runtime.config(with(runtime.config(), runtime.config().nodes(), endpoints));
        LOG.info("endpoint '{}' added on {}", name, config.listen());
        return config;
    }

    @Override
    public synchronized void removeEndpoint(String name) {
        if (runtime.endpoint(name).isEmpty()) {
            throw new AdminException(AdminException.NOT_FOUND, "no endpoint '" + name + "'");
        }
        lifecycle.stop(name);
        List<EndpointConfig> endpoints = new ArrayList<>(runtime.config().endpoints());
        endpoints.removeIf(e -> e.name().equals(name));
        runtime.config(with(runtime.config(), runtime.config().nodes(), endpoints));
        LOG.info("endpoint '{}' removed: it accepts no more connections; its sessions finish", name);
    }

    @Override
    public synchronized NodeDescription addNode(JsonNode definition) {
        NodeConfig node = validated(() -> NodeDefinitions.parse(definition));
        addNode(node);
        return describeNode(node.name());
    }

    /** Adds a node given as its configuration (a reloaded file), checked as {@link #addNode(JsonNode)} does. */
    synchronized void addNode(NodeConfig node) {
        if (runtime.config().node(node.name()).isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "node '" + node.name() + "' already exists");
        }
        if (node.role() == NodeConfig.Role.PRIMARY && runtime.topology().primary().isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "the cluster already has a primary ('"
                    + runtime.topology().primary().get().name() + "'); add the node as a replica");
        }
        runtime.topologyHolder().update(t -> t.withNode(node.name(), node.address().toString(),
                node.role() == NodeConfig.Role.PRIMARY ? NodeRole.PRIMARY : NodeRole.REPLICA, node.zone(),
                node.capacity()));
        List<NodeConfig> nodes = new ArrayList<>(runtime.config().nodes());
        nodes.add(node);
        runtime.config(with(runtime.config(), nodes, runtime.config().endpoints()));
        LOG.info("node '{}' added at {}", node.name(), node.address());
    }

    @Override
    public synchronized void removeNode(String name) {
        Node node = runtime.topology().node(name)
                .orElseThrow(() -> new AdminException(AdminException.NOT_FOUND, "no node '" + name + "'"));
        if (node.isPrimary()) {
            throw new AdminException(AdminException.CONFLICT, "'" + name + "' is the primary; it cannot be removed");
        }
        List<NodeConfig> nodes = new ArrayList<>(runtime.config().nodes());
        nodes.removeIf(n -> n.name().equals(name));
        List<EndpointConfig> endpoints = new ArrayList<>();
        for (EndpointConfig e : runtime.config().endpoints()) {
            EndpointConfig updated = withoutNode(e, name);
            validated(() -> {
                ConfigLoader.validate(updated, nodes);
                return updated;
            });
            endpoints.add(updated);
        }
        runtime.topologyHolder().update(t -> t.withoutNode(name));
        for (EndpointConfig e : endpoints) {
            runtime.endpoint(e.name()).ifPresent(rt -> rt.reconfigure(e, runtime.topology()));
        }
        runtime.config(with(runtime.config(), nodes, endpoints));
        runtime.sessionsLeaveRetiredNodes();
        LOG.info("node '{}' removed: sessions move their later reads to other nodes", name);
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

    @Override
    public synchronized NodeDescription drainNode(String name) {
        if (runtime.topology().node(name).isEmpty()) {
            throw new AdminException(AdminException.NOT_FOUND, "no node '" + name + "'");
        }
        runtime.topologyHolder().update(t -> t.withDraining(name, true));
        runtime.sessionsLeaveRetiredNodes();
        LOG.info("node '{}' draining: sessions leave it at their next transaction boundary", name);
        return describeNode(name);
    }

    @Override
    public synchronized void persist() {
        Path file = configFile.orElseThrow(() -> new AdminException(AdminException.CONFLICT,
                "Sluice was not started from a configuration file: there is nothing to write back to"));
        try {
            ConfigWriter.write(runtime.config(), file);
            LOG.info("configuration written to {}", file);
        } catch (IOException e) {
            throw new AdminException(500, "cannot write " + file + ": " + e.getMessage());
        }
    }

    private NodeDescription describeNode(String name) {
        return describe().nodes().stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new AdminException(AdminException.NOT_FOUND, "no node '" + name + "'"));
    }

    private void replaceEndpointInConfig(EndpointConfig changed) {
        List<EndpointConfig> endpoints = new ArrayList<>();
        for (EndpointConfig e : runtime.config().endpoints()) {
            endpoints.add(e.name().equals(changed.name()) ? changed : e);
        }
        runtime.config(with(runtime.config(), runtime.config().nodes(), endpoints));
    }

    private static SluiceConfig with(SluiceConfig c, List<NodeConfig> nodes, List<EndpointConfig> endpoints) {
        return c.with(List.copyOf(nodes), List.copyOf(endpoints));
    }

    /**
     * The routing rules' own checks, as the file gets them (a read-write endpoint needs the primary
     * and a replica): parsing an endpoint alone does not make them, and a change that passed
     * without them would leave a live endpoint that cannot route.
     */
    private EndpointConfig checked(EndpointConfig e) {
        ConfigLoader.validate(e, runtime.config().nodes());
        return e;
    }

    private static <T> T validated(java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (ConfigException | IllegalArgumentException e) {
            throw new AdminException(AdminException.BAD_REQUEST, e.getMessage());
        }
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.sluice.server.switchover.SwitchoverOutcome> switchover(
            Optional<String> to) {
        return switchovers.start(to);
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.sluice.server.switchover.SwitchoverOutcome> failover(
            Optional<String> to) {
        return failovers.start(to, "manual");
    }

    @Override
    public DigestStore digests() {
        return runtime.digests();
    }
}
