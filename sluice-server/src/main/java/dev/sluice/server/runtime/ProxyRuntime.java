package dev.sluice.server.runtime;

import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.auth.Authenticator;
import dev.sluice.server.auth.ClientSecurity;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.config.ConfigValues;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.consistency.PrimaryPositionSource;
import dev.sluice.server.digest.DigestStore;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.monitor.TopologyHolder;
import dev.sluice.server.pool.NodePoolUse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every session of the proxy shares: the backend connector, the accounts, the topology
 * snapshot, the endpoints and how Sluice presents itself. Thread-safe; what changes is held in
 * volatile snapshots or concurrent maps.
 */
public final class ProxyRuntime implements NodeDirectory {
    private final BackendConnector connector;
    private final Authenticator authenticator;
    private final TopologyHolder topology;
    private final Map<String, EndpointRuntime> endpoints = new ConcurrentHashMap<>();
    private final Map<Integer, CachedRef> refs = new ConcurrentHashMap<>();
    private final GlobalsGeneration globals = new GlobalsGeneration();
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile SluiceConfig config;
    private volatile ServerIdentity identity = ServerIdentity.FALLBACK;
    private volatile PrimaryPositionSource primaryPositions;
    private final SluiceMetrics metrics;
    private final DigestStore digests;
    private volatile java.util.function.IntConsumer probeNow = id -> { };
    private volatile ClientSecurity clientSecurity = ClientSecurity.NONE;
    private final PrimaryHold primaryHold = new PrimaryHold();

    public ProxyRuntime(SluiceConfig config, BackendConnector connector, Authenticator authenticator,
            TopologyHolder topology, SluiceMetrics metrics) {
        this.config = config;
        this.metrics = metrics;
        this.digests = new DigestStore(config.process().queryDigests());
        this.connector = connector;
        this.authenticator = authenticator;
        this.topology = topology;
        this.lastTopology = new java.util.concurrent.atomic.AtomicReference<>(topology.current());
        topology.addListener(t -> {
            rolesFollow(t);
            for (EndpointRuntime e : endpoints.values()) {
                e.onTopology(t);
            }
            Topology before = lastTopology.getAndSet(t);
            for (int id : newlyUnreachableReplicas(before, t)) {
                for (EndpointRuntime e : endpoints.values()) {
                    e.sessionsLeaveUnreachableReplica(id);
                }
            }
        });
    }

    /** The snapshot the topology listener saw last, to tell which nodes just went down. */
    private final java.util.concurrent.atomic.AtomicReference<Topology> lastTopology;

    /**
     * Replicas reachable in {@code before} and unreachable in {@code after}. A hung replica
     * (SIGSTOP, a frozen VM) keeps its TCP connections open, so the sessions waiting on it would
     * wait for ever: only the monitor's timeout tells they never get their answer.
     */
    static java.util.List<Integer> newlyUnreachableReplicas(Topology before, Topology after) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        for (Node n : after.nodes()) {
            if (!n.isPrimary() && !n.state().reachable()
                    && before.node(n.id()).map(b -> b.state().reachable()).orElse(false)) {
                out.add(n.id());
            }
        }
        return out;
    }

    public SluiceConfig config() {
        return config;
    }

    /**
     * Runs {@code newConfig}, its roles taken from the topology: a switchover, a failover or a role
     * change Sluice followed moves the primary in the topology first, and the configuration written
     * back (persist), shared (cluster mode) or compared with a file read again names the primary
     * that runs, not the one Sluice started with.
     */
    public synchronized void config(SluiceConfig newConfig) {
        Optional<Node> primary = topology.current().primary();
        this.config = primary.isPresent() ? newConfig.withPrimary(primary.get().name()) : newConfig;
    }

    /** The configuration's roles follow the topology's primary. */
    private synchronized void rolesFollow(Topology t) {
        Optional<Node> primary = t.primary();
        if (primary.isPresent() && !config.primary().map(NodeConfig::name).equals(Optional.of(primary.get().name()))) {
            config(config);
        }
    }

    public BackendConnector connector() {
        return connector;
    }

    public Authenticator authenticator() {
        return authenticator;
    }

    public TopologyHolder topologyHolder() {
        return topology;
    }

    public Topology topology() {
        return topology.current();
    }

    public long nextConnectionId() {
        return connectionIds.incrementAndGet();
    }

    public ServerIdentity identity() {
        return identity;
    }

    public void identity(ServerIdentity id) {
        this.identity = id;
    }

    /** The batched source of the primary's GTID position for global-consistency reads. */
    /** How many {@code SET GLOBAL}s passed through Sluice: pooled connections older than the last are reset. */
    public GlobalsGeneration globals() {
        return globals;
    }

    public PrimaryPositionSource primaryPositions() {
        return primaryPositions;
    }

    public void primaryPositions(PrimaryPositionSource source) {
        this.primaryPositions = source;
    }

    /** Has the monitor check a node at once. */
    public void checkNow(int nodeId) {
        probeNow.accept(nodeId);
    }

    /** How to ask the monitor to check a node at once. */
    public void probeNow(java.util.function.IntConsumer probe) {
        this.probeNow = probe;
    }

    /**
     * A session saw a node fail: take it out of the readable sets now (the monitor decides when it
     * is back) and have the monitor check it at once.
     */
    @Override
    public void suspect(int nodeId, String reason) {
        topology.update(t -> t.node(nodeId)
                .filter(n -> n.state().reachable())
                .map(n -> t.withState(n.name(), n.state().withReachable(false)))
                .orElse(t));
        probeNow.accept(nodeId);
    }

    /** Every session of every endpoint leaves removed or draining nodes at its next boundary. */
    public void sessionsLeaveRetiredNodes() {
        for (EndpointRuntime e : endpoints.values()) {
            e.sessionsLeaveRetiredNodes();
        }
    }

    /** Pool use per endpoint with a pool and node of the topology, for the metrics (BEHAVIOUR §12). */
    public List<NodePoolUse> poolUse(Duration timeout) {
        List<NodePoolUse> all = new ArrayList<>();
        for (EndpointRuntime e : endpoints.values()) {
            for (Node n : topology().nodes()) {
                e.poolUse(n.id(), timeout).ifPresent(u -> all.add(new NodePoolUse(e.name(), n.name(), u)));
            }
        }
        return all;
    }

    /** The query digests of every I/O thread (BEHAVIOUR §12). */
    public DigestStore digests() {
        return digests;
    }

    public SluiceMetrics metrics() {
        return metrics;
    }

    /** Where commands for the primary wait while a switchover moves it (BEHAVIOUR §10). */
    public PrimaryHold primaryHold() {
        return primaryHold;
    }

    /** TLS toward clients and the limit on failed logins. */
    public ClientSecurity clientSecurity() {
        return clientSecurity;
    }

    public void clientSecurity(ClientSecurity security) {
        this.clientSecurity = security;
    }

    /** Client sessions by the connection id Sluice gave them (what KILL names). */
    private final Map<Long, KillTarget> sessionsById = new ConcurrentHashMap<>();

    /** What KILL can do to a session, from any thread. */
    public interface KillTarget {
        String user();

        /** Ends the session (KILL CONNECTION). */
        void kill();

        /** The node and server thread running the session's current statement, if any (KILL QUERY). */
        java.util.concurrent.CompletableFuture<Optional<long[]>> runningStatement();
    }

    public void registerSession(long connectionId, KillTarget target) {
        sessionsById.put(connectionId, target);
    }

    public void unregisterSession(long connectionId) {
        sessionsById.remove(connectionId);
    }

    public Optional<KillTarget> session(long connectionId) {
        return Optional.ofNullable(sessionsById.get(connectionId));
    }

    public void addEndpoint(EndpointRuntime e) {
        endpoints.put(e.name(), e);
    }

    public void removeEndpoint(String name) {
        endpoints.remove(name);
    }

    public Optional<EndpointRuntime> endpoint(String name) {
        return Optional.ofNullable(endpoints.get(name));
    }

    public Collection<EndpointRuntime> endpoints() {
        return endpoints.values();
    }

    /** The node Sluice currently treats as primary (it follows switchovers). */
    @Override
    public Optional<NodeRef> primary() {
        return topology.current().primary().map(this::ref);
    }

    @Override
    public Optional<NodeRef> node(int id) {
        return topology.current().node(id).map(this::ref);
    }

    public Optional<NodeRef> node(String name) {
        return topology.current().node(name).map(this::ref);
    }

    /**
     * The addressable form of a node; cached, since addresses rarely change. Every statement asks,
     * so the check compares the node's own strings and builds none.
     */
    @Override
    public NodeRef ref(Node n) {
        CachedRef cached = refs.get(n.id());
        if (cached == null || !cached.address().equals(n.address()) || !cached.ref().name().equals(n.name())) {
            cached = new CachedRef(n.address(),
                    new NodeRef(n.id(), n.name(), ConfigValues.hostPort("node " + n.name(), n.address())));
            refs.put(n.id(), cached);
        }
        return cached.ref();
    }

    /** A node's reference and the address text it was parsed from. */
    private record CachedRef(String address, NodeRef ref) {
    }
}
