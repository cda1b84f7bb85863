package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Command;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.auth.AccountStore;
import dev.sluice.server.auth.Authenticator;
import dev.sluice.server.auth.Credential;
import dev.sluice.server.backend.FakeBackend;
import dev.sluice.server.backend.FakeNodes;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.consistency.PrimaryPositionSource;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.monitor.TopologyHolder;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * One client session of a read-write (or read-only) endpoint over a primary and two replicas, with no network:
 * the client is an {@link EmbeddedChannel} the test writes commands into and reads answers from,
 * and every backend connection is a {@link FakeBackend} the test answers. The topology is healthy
 * (every node up, replicas without lag) unless the test changes it.
 */
final class SessionHarness implements AutoCloseable {
    static final long CLIENT_CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SECURE_CONNECTION
            | Capabilities.CLIENT_PLUGIN_AUTH | Capabilities.CLIENT_TRANSACTIONS | Capabilities.CLIENT_LONG_PASSWORD
            | Capabilities.CLIENT_MULTI_RESULTS | Capabilities.CLIENT_DEPRECATE_EOF | Capabilities.CLIENT_SESSION_TRACK;
    private static final int UTF8MB4_GENERAL_CI = 45;
    /** An account whose password is in the configuration, for COM_CHANGE_USER. */
    static final String OTHER_USER = "other";
    static final String OTHER_PASSWORD = "secret";
    /** The scramble the session's handshake sent the client. */
    static final byte[] SCRAMBLE = new byte[20];
    static final String APPLIED_GTIDS = "0-1-100";
    private static final GtidPosition APPLIED = MariaDbGtidList.parse(APPLIED_GTIDS).orElseThrow();

    final FakeNodes nodes = new FakeNodes();
    final TopologyHolder topology;
    final ProxyRuntime proxy;
    final EndpointRuntime endpoint;
    final EmbeddedChannel client = new EmbeddedChannel();
    /** The first client's session as the endpoint and the proxy see it. */
    final EndpointRuntime.SessionHandle session;
    /** The client of the session, as a driver sees it. */
    final ClientEnd c;
    private final List<ClientEnd> others = new ArrayList<>();
    private final long clientCapabilities;
    private long nextConnectionId = 1;

    private SessionHarness(String mode, String endpointKeys, long clientCapabilities) {
        this("", mode, endpointKeys, clientCapabilities);
    }

    private SessionHarness(String topLevelKeys, String mode, String endpointKeys, long clientCapabilities) {
        this.clientCapabilities = clientCapabilities;
        SluiceConfig config = ConfigLoader.parse(topLevelKeys + """
                monitor: {user: monitor, password: monitor, interval: 1s}
                limits: {idle-timeout: 0s}
                nodes:
                  - {name: primary, address: 127.0.0.1:13311, role: primary}
                  - {name: ro1, address: 127.0.0.1:13312, role: replica}
                  - {name: ro2, address: 127.0.0.1:13313, role: replica}
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                """ + ("mode: " + mode + "\n" + endpointKeys).lines().map(l -> "    " + l).collect(Collectors.joining("\n", "", "\n")));
        Topology healthy = ConfigLoader.topologyOf(config.nodes())
                .withState("primary", NodeState.primary(APPLIED))
                .withState("ro1", NodeState.replica(ReplicationLag.NONE, APPLIED))
                .withState("ro2", NodeState.replica(ReplicationLag.NONE, APPLIED));
        topology = new TopologyHolder(healthy);
        nodes.sessionTasks(client::runPendingTasks);
        AccountStore accounts = new AccountStore(() -> CompletableFuture.completedFuture(
                new QueryResult(List.of(), List.of(), 0, Optional.empty())),
                Map.of(OTHER_USER, OTHER_PASSWORD.getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(1),
                System::nanoTime);
        proxy = new ProxyRuntime(config, nodes, new Authenticator(accounts), topology, new SluiceMetrics());
        // Global consistency asks the primary for its position over a monitor connection of its own,
        // which is one more fake backend to the test.
        proxy.primaryPositions(new PrimaryPositionSource(client.eventLoop(), proxy::primary, nodes, new LoginRequest(
                "monitor", new Credential.PlainPassword("monitor".getBytes(StandardCharsets.UTF_8)), Optional.empty(),
                clientCapabilities, UTF8MB4_GENERAL_CI, 1 << 24, Map.of()), Duration.ofSeconds(1)));
        endpoint = new EndpointRuntime(config.endpoints().get(0), healthy);
        proxy.addEndpoint(endpoint);
        // Scheduled work (a stalled answer's cut) runs when the test moves the clock, never by itself.
        client.freezeTime();
        c = new ClientEnd(client);
        open(client);
        session = endpoint.sessions().get(0);
    }

    private void open(EmbeddedChannel channel) {
        ClientIdentity identity = new ClientIdentity("app", new Credential.PlainPassword(
                "app".getBytes(StandardCharsets.UTF_8)), "127.0.0.1", clientCapabilities, UTF8MB4_GENERAL_CI,
                1 << 24, Map.of());
        long connectionId = nextConnectionId++;
        ClientSession s = new ClientSession(channel, proxy, endpoint, connectionId, SCRAMBLE.clone(), identity,
                Optional.of("test"));
        // As the login does: a read-only endpoint's session is given its replica first.
        s.firstBackend().takeConnectionReplica().ifPresent(e -> {
            throw new IllegalStateException("the login would be refused: " + e.message());
        });
        channel.pipeline().addLast(new ClientSessionHandler(s, connectionId, proxy.config().limits().idleTimeout()));
        s.started();
    }

    /**
     * Another client of the same endpoint, on the same event loop as the first: connection pools
     * are per event loop, so the two share one (a connection handed back by one can serve the other).
     */
    ClientEnd anotherClient() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.deregister().syncUninterruptibly();
        client.eventLoop().register(channel).syncUninterruptibly();
        ClientEnd other = new ClientEnd(channel);
        open(channel);
        others.add(other);
        return other;
    }

    /** A session on a read-write endpoint with these extra endpoint keys (YAML, one per line). */
    static SessionHarness readWrite(String endpointKeys) {
        return new SessionHarness("read-write", endpointKeys, CLIENT_CAPABILITIES);
    }

    /** A session on a read-only endpoint (named {@code rw} all the same) with these endpoint keys. */
    static SessionHarness readOnly(String endpointKeys) {
        return new SessionHarness("read-only", endpointKeys, CLIENT_CAPABILITIES);
    }

    /** Endpoint keys that send every read to a replica, none to the primary. */
    static final String READS_ON_REPLICAS = "balancer: weighted\nweights: {primary: 0, ro1: 100, ro2: 100}";

    /** A session whose reads go to the replicas. */
    static SessionHarness readWrite() {
        return readWrite(READS_ON_REPLICAS);
    }

    /** A session whose reads go to the replicas, on an endpoint with these extra keys (YAML, one per line). */
    static SessionHarness readsOnReplicas(String endpointKeys) {
        return readWrite(READS_ON_REPLICAS + "\n" + endpointKeys);
    }

    /** A session whose reads go to the replicas, in a proxy with these top-level keys (YAML, a line each). */
    static SessionHarness readsOnReplicasInProxyWith(String topLevelKeys) {
        return new SessionHarness(topLevelKeys, "read-write", READS_ON_REPLICAS, CLIENT_CAPABILITIES);
    }

    static SessionHarness readWrite(String endpointKeys, long clientCapabilities) {
        return new SessionHarness("read-write", endpointKeys, clientCapabilities);
    }

    // ---- the client's side (the first client) ------------------------------------------------

    void send(int command, byte[] argument) {
        c.send(command, argument);
    }

    /** The client sends a packet that continues an exchange (sequence {@code sequenceId}), not a command. */
    void sendFollowUp(int sequenceId, byte[] payload) {
        c.sendContinuation(sequenceId, payload);
    }

    void query(String sql) {
        c.query(sql);
    }

    boolean hasAnswer() {
        return c.hasAnswer();
    }

    byte[] packet() {
        return c.packet();
    }

    byte[] ok() {
        return c.ok();
    }

    String error() {
        return c.error();
    }

    List<List<String>> rows() {
        return c.rows();
    }

    List<List<String>> rowsBetweenEofs() {
        return c.rowsBetweenEofs();
    }

    /** The client reads one row through {@code node}, which the test answers with {@code 1}. */
    FakeBackend read(String sql, String node) {
        query(sql);
        FakeBackend b = backend(node);
        assertThat(b.takeClientCommand()).isEqualTo(sql);
        b.rows(List.of("1"), List.of(List.of("1")));
        assertThat(rows()).containsExactly(List.of("1"));
        return b;
    }

    /** The client's statement runs on the primary, which answers OK. */
    FakeBackend write(String sql) {
        query(sql);
        FakeBackend primary = backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(sql);
        primary.ok();
        ok();
        return primary;
    }

    /** The client's INSERT commits on the primary as {@code gtid}, which session tracking reports. */
    void commit(String gtid) {
        query("INSERT INTO t VALUES (1)");
        FakeBackend primary = backend("primary");
        primary.takeClientCommand();
        primary.okCommitted(gtid);
        ok();
    }

    // ---- the backends' side -----------------------------------------------------------------

    FakeBackend backend(String node) {
        return nodes.last(node);
    }

    /** Runs what the session scheduled on its event loop. */
    void runTasks() {
        client.runPendingTasks();
    }

    /** Moves the session's clock on and runs what falls due. */
    void advanceTime(Duration by) {
        client.advanceTimeBy(by.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        client.runPendingTasks();
    }

    boolean clientOpen() {
        return client.isOpen();
    }

    /** The monitor's view of a node changes (it stops answering, lags, applies more …); sessions are told. */
    void nodeState(String node, java.util.function.UnaryOperator<NodeState> change) {
        topology.update(t -> t.withState(node, change.apply(t.node(node).orElseThrow().state())));
        runTasks();
    }

    /** The replica's applied GTID position, as the monitor last read it. */
    void applied(String node, String mariaDbGtids) {
        nodeState(node, s -> s.withPosition(MariaDbGtidList.parse(mariaDbGtids).orElseThrow()));
    }

    @Override
    public void close() {
        for (ClientEnd other : others) {
            other.channel.close();
            other.release();
        }
        client.close();
        c.release();
        nodes.releaseAll();
        for (ClientEnd other : others) {
            other.channel.finishAndReleaseAll();
        }
        client.finishAndReleaseAll();
    }
}
