package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Command;
import dev.sluice.protocol.LengthEncoded;
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
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.monitor.TopologyHolder;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
 * One client session of a read-write endpoint over a primary and two replicas, with no network:
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
    private static final GtidPosition APPLIED = MariaDbGtidList.parse("0-1-100").orElseThrow();

    final FakeNodes nodes = new FakeNodes();
    final TopologyHolder topology;
    final ProxyRuntime proxy;
    final EndpointRuntime endpoint;
    final EmbeddedChannel client = new EmbeddedChannel();
    final ClientSession session;
    private final ByteBuf answers = Unpooled.buffer();

    private SessionHarness(String endpointKeys, long clientCapabilities) {
        SluiceConfig config = ConfigLoader.parse("""
                monitor: {user: monitor, password: monitor, interval: 1s}
                limits: {idle-timeout: 0s}
                nodes:
                  - {name: primary, address: 127.0.0.1:13311, role: primary}
                  - {name: ro1, address: 127.0.0.1:13312, role: replica}
                  - {name: ro2, address: 127.0.0.1:13313, role: replica}
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                """ + endpointKeys.lines().map(l -> "    " + l).collect(Collectors.joining("\n", "", "\n")));
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
        endpoint = new EndpointRuntime(config.endpoints().get(0), healthy);
        proxy.addEndpoint(endpoint);
        ClientIdentity identity = new ClientIdentity("app", new Credential.PlainPassword(
                "app".getBytes(StandardCharsets.UTF_8)), "127.0.0.1", clientCapabilities, UTF8MB4_GENERAL_CI,
                1 << 24, Map.of());
        session = new ClientSession(client, proxy, endpoint, 1, SCRAMBLE.clone(), identity, Optional.of("test"));
        client.pipeline().addLast(new ClientSessionHandler(session));
        session.started();
    }

    /** A session on a read-write endpoint with these extra endpoint keys (YAML, one per line). */
    static SessionHarness readWrite(String endpointKeys) {
        return new SessionHarness(endpointKeys, CLIENT_CAPABILITIES);
    }

    static SessionHarness readWrite() {
        return readWrite("balancer: weighted\nweights: {primary: 0, ro1: 100, ro2: 100}");
    }

    static SessionHarness readWrite(String endpointKeys, long clientCapabilities) {
        return new SessionHarness(endpointKeys, clientCapabilities);
    }

    // ---- the client's side ------------------------------------------------------------------

    /** The client sends a command packet: sequence id 0, then the command byte and its argument. */
    void send(int command, byte[] argument) {
        ByteBuf frame = Unpooled.buffer(4 + 1 + argument.length);
        frame.writeMediumLE(1 + argument.length).writeByte(0).writeByte(command).writeBytes(argument);
        client.writeInbound(frame);
        client.runPendingTasks();
    }

    /** The client sends a packet that continues an exchange (sequence {@code sequenceId}), not a command. */
    void sendFollowUp(int sequenceId, byte[] payload) {
        ByteBuf frame = Unpooled.buffer(4 + payload.length);
        frame.writeMediumLE(payload.length).writeByte(sequenceId).writeBytes(payload);
        client.writeInbound(frame);
        client.runPendingTasks();
    }

    void query(String sql) {
        send(Command.COM_QUERY, sql.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether the client has been sent a whole packet it has not read yet. */
    boolean hasAnswer() {
        collect();
        return answers.readableBytes() >= 4 && answers.readableBytes() >= 4 + answers.getUnsignedMediumLE(
                answers.readerIndex());
    }

    private void collect() {
        client.runPendingTasks();
        for (Object m = client.readOutbound(); m != null; m = client.readOutbound()) {
            ByteBuf b = (ByteBuf) m;
            answers.writeBytes(b);
            b.release();
        }
    }

    /** The next packet the client got: its payload. */
    byte[] packet() {
        if (!hasAnswer()) {
            throw new AssertionError("the client got nothing (more)");
        }
        int length = answers.readUnsignedMediumLE();
        answers.skipBytes(1);
        byte[] payload = new byte[length];
        answers.readBytes(payload);
        answers.discardReadBytes();
        return payload;
    }

    /** The client's next answer is an OK; returns its payload. */
    byte[] ok() {
        byte[] p = packet();
        if (p[0] != 0) {
            throw new AssertionError("expected OK, got " + describe(p));
        }
        return p;
    }

    /** The client's next answer is an ERR; returns its error code and message. */
    String error() {
        byte[] p = packet();
        if ((p[0] & 0xFF) != 0xFF) {
            throw new AssertionError("expected ERR, got " + describe(p));
        }
        int code = (p[1] & 0xFF) | (p[2] & 0xFF) << 8;
        return code + " " + new String(p, 9, p.length - 9, StandardCharsets.UTF_8);
    }

    /** The client's next answer is a text result set (DEPRECATE_EOF); returns its rows. */
    List<List<String>> rows() {
        byte[] first = packet();
        int columns = (int) LengthEncoded.getIntegerAt(Unpooled.wrappedBuffer(first), 0);
        for (int i = 0; i < columns; i++) {
            packet();
        }
        List<List<String>> rows = new ArrayList<>();
        while (true) {
            byte[] p = packet();
            if ((p[0] & 0xFF) == 0xFE && p.length < 0xFFFFFF) {
                return rows;
            }
            ByteBuf row = Unpooled.wrappedBuffer(p);
            List<String> values = new ArrayList<>();
            for (int c = 0; c < columns; c++) {
                if (row.getUnsignedByte(row.readerIndex()) == 0xFB) {
                    row.skipBytes(1);
                    values.add(null);
                } else {
                    values.add(LengthEncoded.readString(row, "value"));
                }
            }
            rows.add(values);
        }
    }

    private static String describe(byte[] p) {
        return java.util.HexFormat.of().formatHex(p);
    }

    // ---- the backends' side -----------------------------------------------------------------

    FakeBackend backend(String node) {
        return nodes.last(node);
    }

    /** Runs what the session scheduled on its event loop. */
    void runTasks() {
        client.runPendingTasks();
    }

    boolean clientOpen() {
        return client.isOpen();
    }

    @Override
    public void close() {
        client.close();
        collect();
        answers.release();
        nodes.releaseAll();
        client.finishAndReleaseAll();
    }
}
