package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.server.config.ConfigWriter;
import dev.sluice.server.config.EndpointSettings;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.digest.DigestStore;
import dev.sluice.server.runtime.EndpointLifecycle;
import dev.sluice.server.runtime.ProxyRuntime;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
    private final Optional<Path> configFile;
    private final long startedNanos = System.nanoTime();

    private final dev.sluice.server.switchover.Switchovers switchovers;
    private final dev.sluice.server.switchover.Failovers failovers;
    private final RunningConfiguration running;

    public LiveProxyControl(ProxyRuntime runtime, EndpointLifecycle lifecycle, Optional<Path> configFile,
            dev.sluice.server.switchover.Switchovers switchovers, dev.sluice.server.switchover.Failovers failovers) {
        this.switchovers = switchovers;
        this.failovers = failovers;
        this.runtime = runtime;
        this.configFile = configFile;
        this.running = new RunningConfiguration(runtime, lifecycle);
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
        SluiceConfig target = ConfigEdits.modifyEndpoint(runtime.config(), name, changes);
        running.apply(target);
        LOG.info("endpoint '{}' modified: {}", name, changes);
        return settings(target, name);
    }

    @Override
    public synchronized ObjectNode addEndpoint(JsonNode definition) {
        SluiceConfig target = ConfigEdits.addEndpoint(runtime.config(), definition);
        running.apply(target);
        return settings(target, definition.get("name").asText());
    }

    @Override
    public synchronized void removeEndpoint(String name) {
        running.apply(ConfigEdits.removeEndpoint(runtime.config(), name));
    }

    @Override
    public synchronized NodeDescription addNode(JsonNode definition) {
        SluiceConfig target = ConfigEdits.addNode(runtime.config(), runtime.topology(), definition);
        running.apply(target);
        return describeNode(target.nodes().get(target.nodes().size() - 1).name());
    }

    @Override
    public synchronized void removeNode(String name) {
        running.apply(ConfigEdits.removeNode(runtime.config(), runtime.topology(), name));
    }

    /**
     * Runs {@code target} (nodes and endpoints: cluster mode's shared configuration, a configuration
     * file read again), as the admin changes above are run; a refused one throws
     * {@link AdminException} and leaves things as they were.
     */
    public synchronized void apply(SluiceConfig target) {
        running.apply(target);
    }

    /**
     * Makes exactly {@code nodes} draining (cluster mode's shared drains): sessions leave a newly
     * draining node at their next transaction boundary.
     */
    public synchronized void drainOnly(java.util.List<String> nodes) {
        boolean added = false;
        for (dev.sluice.routing.topology.Node n : runtime.topology().nodes()) {
            boolean wanted = nodes.contains(n.name());
            if (n.draining() != wanted) {
                runtime.topologyHolder().update(t -> t.withDraining(n.name(), wanted));
                added |= wanted;
                LOG.info(wanted ? "node '{}' draining: sessions leave it at their next transaction boundary"
                        : "node '{}' no longer draining", n.name());
            }
        }
        if (added) {
            runtime.sessionsLeaveRetiredNodes();
        }
    }

    /**
     * Makes {@code node} the primary of the topology, the old primary a replica, as the shared
     * configuration of a cluster says after a switchover or failover run by the leader (BEHAVIOUR
     * §11). The node's state stays what this instance's monitor last saw.
     */
    public synchronized void followPrimary(String node) {
        Optional<dev.sluice.routing.topology.Node> n = runtime.topology().node(node);
        if (n.isEmpty() || n.get().isPrimary()) {
            return;
        }
        runtime.topologyHolder().update(t -> t.node(node).map(p -> dev.sluice.server.monitor.RoleFollower.promote(t, p))
                .orElse(t));
        LOG.info("node '{}' is the primary now, as the cluster's shared configuration says", node);
    }

    /** The old primary of the last failover known here, and whether it is still held out. */
    public Optional<dev.sluice.server.switchover.Failovers.LeftBehind> leftBehind() {
        return failovers.leftBehind();
    }

    /** The old primary the cluster's shared configuration holds out now, and before: see {@code Failovers}. */
    public void formerPrimaryShared(Optional<dev.sluice.server.config.SharedConfig.FormerPrimary> now,
            Optional<dev.sluice.server.config.SharedConfig.FormerPrimary> before) {
        failovers.formerPrimaryShared(now, before,
                runtime.topology().primary().map(dev.sluice.routing.topology.Node::name).orElse(""));
    }

    /** This instance leads now: it judges a failover's old primary that is already back. */
    public void lookForFormerPrimary() {
        failovers.lookForFormerPrimary();
    }

    /** Client sessions open now, over every endpoint. */
    public int openSessions() {
        return runtime.endpoints().stream().mapToInt(e -> e.sessions().size()).sum();
    }

    /** The nodes being drained now. */
    public java.util.List<String> draining() {
        return runtime.topology().nodes().stream().filter(dev.sluice.routing.topology.Node::draining)
                .map(dev.sluice.routing.topology.Node::name).toList();
    }

    /** The running configuration. */
    public SluiceConfig config() {
        return runtime.config();
    }

    /** The topology the running proxy sees now. */
    public dev.sluice.routing.topology.Topology topology() {
        return runtime.topology();
    }

    private static ObjectNode settings(SluiceConfig config, String endpoint) {
        return ConfigEdits.settings(config, endpoint);
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

    /** One node as DescribeDBProxy shows it. */
    public NodeDescription describeNode(String name) {
        return describe().nodes().stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new AdminException(AdminException.NOT_FOUND, "no node '" + name + "'"));
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
