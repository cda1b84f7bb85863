package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §10, the switchover run by Sluice ({@code POST /v1/switchover}): under sysbench's
 * read-write load, as an account with ALL PRIVILEGES (READ_ONLY ADMIN included, so read_only alone
 * would not stop it), the primary moves to ro1 and back with no client error and no reconnect, and
 * the cluster ends whole: every node at the same GTID position, replication running, the same
 * checksums everywhere. A switchover to a target that is unknown or lags is refused, and one whose
 * sessions keep a transaction open past {@code switchover-timeout} is called off; neither changes
 * the cluster.
 */
class PlannedSwitchoverTest {
    private static final String ALL_USER = "sw_all";
    private static final String ALL_PASSWORD = "sw_all";
    private static final Duration SWITCHOVER_TIMEOUT = Duration.ofSeconds(5);
    private static final int SYSBENCH_THREADS = 8;
    private static final int SYSBENCH_SECONDS = 30;
    private static final Duration SETTLE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static Path workDir;

    @BeforeAll
    static void start() throws IOException, InterruptedException {
        cluster = SandboxCluster.get();
        for (String host : new String[] {"127.0.0.1", "localhost"}) {
            // As root: the sandbox's own application account lacks READ_ONLY ADMIN, so it cannot grant it.
            cluster.rootQuery(cluster.primary(), "CREATE USER '" + ALL_USER + "'@'" + host + "' IDENTIFIED BY '"
                    + ALL_PASSWORD + "'; GRANT ALL PRIVILEGES ON *.* TO '" + ALL_USER + "'@'" + host + "'");
        }
        // What scripts/sandbox.sh grants the monitor account now; a sandbox made before it lacks them.
        cluster.rootQuery(cluster.primary(), "GRANT RELOAD, READ_ONLY ADMIN ON *.* TO '" + SandboxCluster.MONITOR_USER
                + "'@'127.0.0.1'");
        Sysbench.createDatabase(cluster);
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS test.planned_switchover "
                + "(id BIGINT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(40))");
        String config = SluiceHarness.nodesYaml(cluster).replace("interval: 500ms}",
                "interval: 500ms, switchover-timeout: " + SWITCHOVER_TIMEOUT.toSeconds() + "s}") + """
                replication: {user: repl, password: repl}
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                  - name: pooled
                    listen: 127.0.0.1:0
                    mode: read-write
                    connection-pool: transaction
                  - name: sessions
                    listen: 127.0.0.1:0
                    mode: read-write
                    connection-pool: session
                """;
        sluice = SluiceHarness.fromYaml(cluster, config);
        workDir = Files.createTempDirectory("planned-switchover");
        cluster.waitForReplicasCaughtUp(SETTLE);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        cluster.restoreHealthy();
        Sysbench.dropDatabase(cluster);
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.planned_switchover");
        for (String host : new String[] {"127.0.0.1", "localhost"}) {
            cluster.rootQuery(cluster.primary(), "DROP USER IF EXISTS '" + ALL_USER + "'@'" + host + "'");
        }
        cluster.waitForReplicasCaughtUp(SETTLE);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
        await("Sluice sees node 0 as the primary again").atMost(SETTLE)
                .until(() -> role("primary").equals("primary") && role("ro1").equals("replica"));
        // The Sluice is the class's: a node a test paused must be back in its view too, or the next
        // test's switchover would leave that node out, pointed at the old primary.
        await("Sluice sees every node up again").atMost(SETTLE).until(() -> cluster.nodes().stream()
                .allMatch(n -> node(n.name()).get("state").asText().equals("up")));
    }

    @Test
    void aSwitchoverUnderSysbenchAndBackCostsClientsNothingAndLeavesEveryNodeTheSame() throws Exception {
        Sysbench sysbench = new Sysbench(sluice.port("rw"), workDir, ALL_USER, ALL_PASSWORD);
        sysbench.prepare();
        cluster.waitForReplicasCaughtUp(SETTLE);
        Sysbench.Run run = sysbench.run("oltp_read_write", SYSBENCH_THREADS, SYSBENCH_SECONDS);
        long before = queriesSoFar();
        await("sysbench is under way").atMost(SETTLE).until(() -> queriesSoFar() > before + 500);

        JsonNode there = switchover("{\"to\": \"ro1\"}", 200);
        assertThat(there.get("from").asText()).isEqualTo("primary");
        assertThat(there.get("to").asText()).isEqualTo("ro1");
        assertThat(there.get("warnings")).as("warnings: " + there).isEmpty();
        assertThat(role("ro1")).isEqualTo("primary");
        assertThat(role("primary")).isEqualTo("replica");
        assertReplicatesFrom(cluster.node("ro1"), "primary", "ro2", "ro3");
        long atRo1 = queriesSoFar();
        await("writes go on on ro1").atMost(SETTLE).until(() -> queriesSoFar() > atRo1 + 500);

        JsonNode back = switchover("{\"to\": \"primary\"}", 200);
        assertThat(back.get("to").asText()).isEqualTo("primary");
        assertThat(back.get("warnings")).as("warnings: " + back).isEmpty();
        assertReplicatesFrom(cluster.primary(), "ro1", "ro2", "ro3");
        JsonNode last = describe().get("switchover");
        assertThat(last.get("state").asText() + " " + last.get("to").asText()).as(last.toString())
                .isEqualTo("done primary");

        String out = run.finish();
        assertThat(run.process().exitValue()).as("sysbench ended without an error:\n" + out).isZero();
        assertThat(out).doesNotContain("FATAL");
        assertThat(Sysbench.reconnects(out)).as("reconnects").isZero();
        // How long writes were held is a speed figure, measured by switchover-under-load.sh, not asserted
        // here: a shared machine's load would decide it. That they were held, and released, is asserted.
        assertThat(there.get("held-ms").asLong()).as("writes held, there: " + there).isPositive();
        assertThat(back.get("held-ms").asLong()).as("writes held, back: " + back).isPositive();

        await("every node at the same GTID position").atMost(SETTLE).until(() -> positions().values().stream()
                .distinct().count() == 1);
        assertThat(cluster.replicationProblems()).as("replication everywhere").isEmpty();
        Map<String, String> checksums = new LinkedHashMap<>();
        for (SandboxNode n : cluster.nodes()) {
            checksums.put(n.name(), checksum(n));
        }
        assertThat(checksums.values().stream().distinct()).as("table checksums per node: " + checksums).hasSize(1);
    }

    @Test
    void aSwitchoverToAnUnknownLaggingOrUnreachableNodeIsRefusedAndChangesNothing() throws Exception {
        assertThat(switchoverError("{\"to\": \"ro9\"}")).contains("no node 'ro9'");

        // Another instance's move in progress holds its lock on the primary.
        try (Connection other = cluster.connect(cluster.primary()); Statement lock = other.createStatement();
                ResultSet got = lock.executeQuery("SELECT GET_LOCK('sluice_primary_move', 0)")) {
            got.next();
            assertThat(got.getInt(1)).isEqualTo(1);
            assertThat(switchoverError("{\"to\": \"ro1\"}")).contains("another switchover or failover is changing "
                    + "'primary'").contains("nothing was changed");
        }

        SandboxNode ro2 = cluster.node("ro2");
        cluster.stopSqlThread(ro2);
        await("Sluice sees ro2's replication stopped").atMost(SETTLE)
                .until(() -> node("ro2").get("replication").asText().equals("broken"));
        assertThat(switchoverError("{\"to\": \"ro2\"}")).contains("cannot switch over to 'ro2'")
                .contains("replication is not running");

        SandboxNode ro3 = cluster.node("ro3");
        cluster.delayReplication(ro3, 60);
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO test.planned_switchover (note) VALUES ('lag')");
        }
        await("ro3 lags more than the switchover may wait").atMost(SETTLE)
                .until(() -> node("ro3").get("lagSeconds").asLong() > SWITCHOVER_TIMEOUT.toSeconds());
        assertThat(switchoverError("{\"to\": \"ro3\"}")).contains("cannot switch over to 'ro3'").contains("lags");
        assertThat(describe().at("/switchover/state").asText()).isEqualTo("refused");

        cluster.pause(ro3);
        try {
            await("Sluice sees ro3 down").atMost(SETTLE).until(() -> node("ro3").get("state").asText().equals("down"));
            assertThat(switchoverError("{\"to\": \"ro3\"}")).contains("cannot switch over to 'ro3'")
                    .contains("unreachable");
        } finally {
            cluster.resume(ro3);
        }

        assertThat(role("primary")).isEqualTo("primary");
        assertThat(cluster.queryString(cluster.primary(), "SELECT @@read_only")).isEqualTo("0");
        assertThat(cluster.replicatesFromPrimary(cluster.node("ro1"))).isTrue();
    }

    @Test
    void aTransactionOpenPastTheTimeoutCallsTheSwitchoverOffAndTheHeldWriteRunsOnTheOldPrimary() throws Exception {
        try (Connection open = sluice.connect("rw"); Statement inTx = open.createStatement();
                Connection other = sluice.connect("rw"); Statement autocommit = other.createStatement()) {
            open.setAutoCommit(false);
            inTx.executeUpdate("INSERT INTO test.planned_switchover (note) VALUES ('open')");
            CompletableFuture<JsonNode> refused = CompletableFuture.supplyAsync(() -> switchoverReply("{}"));
            await("the switchover holds writes").atMost(SETTLE).until(() -> held() || refused.isDone());
            JsonNode during = describe().get("switchover");
            assertThat(during.get("state").asText() + " " + during.get("from").asText() + " -> "
                    + during.get("to").asText()).as(during.toString()).isEqualTo("in-progress primary -> ro1");
            // An autocommit write during the hold waits, then runs where the primary still is.
            long started = System.nanoTime();
            autocommit.executeUpdate("INSERT INTO test.planned_switchover (note) VALUES ('held')");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the write waited for the hold")
                    .isGreaterThan(Duration.ofSeconds(1));
            JsonNode reply = refused.get();
            assertThat(reply.get("status").asInt()).as(reply.toString()).isEqualTo(409);
            assertThat(reply.get("error").asText()).contains("called off").contains("has a transaction open")
                    .contains("'primary' stays the primary");
            assertThat(describe().at("/switchover/state").asText()).isEqualTo("called-off");
            inTx.executeUpdate("INSERT INTO test.planned_switchover (note) VALUES ('still open')");
            open.commit();
        }
        assertThat(role("primary")).isEqualTo("primary");
        assertThat(cluster.queryString(cluster.primary(), "SELECT @@read_only")).isEqualTo("0");
        assertThat(cluster.queryString(cluster.primary(), "SELECT GROUP_CONCAT(note ORDER BY id) FROM "
                + "test.planned_switchover WHERE note IN ('open', 'held', 'still open')"))
                .isEqualTo("open,held,still open");
        for (SandboxNode r : cluster.replicas()) {
            assertThat(cluster.replicatesFromPrimary(r)).as(r.name() + " replicates from node 0").isTrue();
        }
    }

    @Test
    void sessionsKeepTheirStateAndPreparedStatementsThroughEveryPoolAndWhatCannotMoveCallsTheSwitchoverOff() throws Exception {
        SandboxNode ro1 = cluster.node("ro1");
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", "useServerPrepStmts=true"));
                Statement s = c.createStatement();
                java.sql.PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO planned_switchover (note) VALUES (?)");
                PooledWriter pooled = PooledWriter.start("pooled");
                PooledWriter sessionPooled = PooledWriter.start("sessions")) {
            s.execute("SET @v = 42");
            s.execute("SET SESSION time_zone = '+03:00'");
            s.execute("USE test");
            insert.setString(1, "before");
            assertThat(insert.executeUpdate()).isEqualTo(1);

            JsonNode there = switchover("{\"to\": \"ro1\"}", 200);
            assertThat(there.get("to").asText()).isEqualTo("ro1");
            assertThat(there.get("warnings")).as(there.toString()).isEmpty();

            insert.setString(1, "after");
            assertThat(insert.executeUpdate()).as("the statement prepared before, executed on the new primary")
                    .isEqualTo(1);
            try (ResultSet rs = s.executeQuery("/*FORCE_MASTER*/ SELECT @@server_id, @v, @@time_zone, DATABASE()")) {
                rs.next();
                assertThat(rs.getLong(1)).as("the new primary").isEqualTo(ro1.serverId());
                assertThat(rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4))
                        .as("the session's state there").isEqualTo("42 +03:00 test");
            }

            try (Connection t = sluice.connect("rw"); Statement ts = t.createStatement()) {
                ts.execute("CREATE TEMPORARY TABLE sw_tmp (a INT)");
                ts.execute("INSERT INTO sw_tmp VALUES (1)");
                String error = switchoverError("{\"to\": \"primary\"}");
                assertThat(error).contains("called off").contains("holds temporary tables")
                        .contains("'ro1' stays the primary");
                assertThat(role("ro1")).isEqualTo("primary");
                ts.execute("DROP TEMPORARY TABLE sw_tmp");
            }
            JsonNode back = switchover("{\"to\": \"primary\"}", 200);
            assertThat(back.get("warnings")).as(back.toString()).isEmpty();
            insert.setString(1, "back");
            assertThat(insert.executeUpdate()).isEqualTo(1);
            pooled.close();
            sessionPooled.close();
            assertThat(pooled.failures()).as("a writer through the transaction pool").isEmpty();
            assertThat(pooled.writes()).isPositive();
            assertThat(sessionPooled.failures()).as("a writer through the session pool").isEmpty();
            assertThat(sessionPooled.writes()).isPositive();
        }
        assertThat(cluster.queryString(cluster.primary(), "SELECT GROUP_CONCAT(note ORDER BY id) FROM "
                + "test.planned_switchover WHERE note IN ('before', 'after', 'back')")).isEqualTo("before,after,back");
    }

    @Test
    void aPrivilegedClientConnectedStraightToTheOldPrimaryIsEndedAndItsTransactionNeverLands() throws Exception {
        SandboxNode primary = cluster.primary();
        String url = cluster.jdbcUrl(primary);
        try (Connection direct = DriverManager.getConnection(url, ALL_USER, ALL_PASSWORD);
                Statement s = direct.createStatement()) {
            direct.setAutoCommit(false);
            s.executeUpdate("INSERT INTO test.planned_switchover (note) VALUES ('bypass')");

            JsonNode there = switchover("{\"to\": \"ro1\"}", 200);
            assertThat(there.get("warnings")).as(there.toString()).isEmpty();
            org.assertj.core.api.Assertions.assertThatThrownBy(direct::commit)
                    .as("the connection that went around Sluice was ended by the fence")
                    .isInstanceOf(SQLException.class);
        }
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO test.planned_switchover (note) VALUES ('through sluice')");
        }
        switchover("{\"to\": \"primary\"}", 200);
        cluster.waitForReplicasCaughtUp(SETTLE);
        for (SandboxNode n : cluster.nodes()) {
            assertThat(cluster.queryString(n, "SELECT CONCAT(SUM(note = 'bypass'), '/', SUM(note = 'through sluice')) "
                    + "FROM test.planned_switchover")).as(n.name()).isEqualTo("0/1");
        }
        assertThat(cluster.replicationProblems()).isEmpty();
    }

    /** One client writing through a pooling endpoint, with server-side prepared statements. */
    private static final class PooledWriter implements AutoCloseable {
        private final Thread thread = new Thread(this::run, "pooled-writer");
        private final String endpoint;
        private final java.util.List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();
        private volatile boolean stop;

        private PooledWriter(String endpoint) {
            this.endpoint = endpoint;
        }

        static PooledWriter start(String endpoint) {
            PooledWriter w = new PooledWriter(endpoint);
            w.thread.setDaemon(true);
            w.thread.start();
            return w;
        }

        private void run() {
            try (Connection c = DriverManager.getConnection(sluice.mariadbUrl(endpoint, "useServerPrepStmts=true"));
                    java.sql.PreparedStatement p = c.prepareStatement(
                            "INSERT INTO planned_switchover (note) VALUES (?)")) {
                while (!stop) {
                    p.setString(1, "pooled");
                    p.executeUpdate();
                    writes.incrementAndGet();
                    PrimaryTicker.sleep(5);
                }
            } catch (SQLException e) {
                failures.add(e.getMessage());
            }
        }

        java.util.List<String> failures() {
            return java.util.List.copyOf(failures);
        }

        long writes() {
            return writes.get();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(30_000);
        }
    }

    // ---- helpers ----

    private static long queriesSoFar() {
        return sluice.server().runtime().endpoint("rw").orElseThrow().commands();
    }

    private static boolean held() {
        return sluice.server().runtime().primaryHold().holding();
    }

    private static JsonNode switchover(String body, int status) {
        JsonNode reply = switchoverReply(body);
        assertThat(reply.get("status").asInt()).as(reply.toString()).isEqualTo(status);
        return reply;
    }

    private static String switchoverError(String body) {
        JsonNode reply = switchover(body, 409);
        return reply.get("error").asText();
    }

    /** The answer's JSON with its HTTP status added as {@code status}. */
    private static JsonNode switchoverReply(String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sluice.adminAddress().getPort()
                + "/v1/switchover")).timeout(Duration.ofMinutes(1)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
            com.fasterxml.jackson.databind.node.ObjectNode o =
                    (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(r.body());
            o.put("status", r.statusCode());
            return o;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode node(String name) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sluice.adminAddress().getPort()
                + "/v1/nodes/" + name)).timeout(Duration.ofSeconds(10)).GET().build();
        try {
            return JSON.readTree(HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode describe() {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sluice.adminAddress().getPort()
                + "/v1/proxy")).timeout(Duration.ofSeconds(10)).GET().build();
        try {
            return JSON.readTree(HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String role(String name) {
        return node(name).get("role").asText();
    }

    private static void assertReplicatesFrom(SandboxNode source, String... replicas) throws SQLException {
        for (String name : replicas) {
            try (Connection c = cluster.connect(cluster.node(name)); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
                assertThat(rs.next()).as(name + " replicates").isTrue();
                assertThat(rs.getInt("Master_Port")).as(name + "'s source").isEqualTo(source.port());
                assertThat(rs.getString("Slave_IO_Running") + "/" + rs.getString("Slave_SQL_Running"))
                        .as(name + "'s threads: " + rs.getString("Last_IO_Error") + rs.getString("Last_SQL_Error"))
                        .isEqualTo("Yes/Yes");
                assertThat(rs.getString("Using_Gtid")).isEqualTo("Slave_Pos");
            }
        }
    }

    private static Map<String, String> positions() {
        Map<String, String> out = new LinkedHashMap<>();
        for (SandboxNode n : cluster.nodes()) {
            out.put(n.name(), cluster.queryString(n, "SELECT @@gtid_binlog_pos"));
        }
        return out;
    }

    private static String checksum(SandboxNode node) throws SQLException {
        StringBuilder b = new StringBuilder();
        try (Connection c = DriverManager.getConnection(cluster.jdbcUrl(node), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("CHECKSUM TABLE " + Sysbench.DATABASE + ".sbtest1, " + Sysbench.DATABASE
                        + ".sbtest2, test.planned_switchover")) {
            while (rs.next()) {
                b.append(rs.getString(1)).append('=').append(rs.getString(2)).append(' ');
            }
        }
        return b.toString().trim();
    }
}
