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
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §10, failover made for real: the sandbox primary is killed (SIGKILL) under a writer that
 * records every commit acknowledged to it, with semi-synchronous replication on. With
 * {@code failover: auto} Sluice promotes a replica by itself: writes work again within a bound
 * derived from the monitor settings, an idle session goes on on the new primary with its state and
 * no error, a transaction open on the dead primary ends with an error naming the failover, no
 * acknowledged commit is missing, and the old primary, restarted, is made read-only and rejoins as a
 * replica; on an endpoint with {@code transaction-replay} the open transaction (a server-side
 * prepared statement's executions) is replayed on the new primary instead and commits. With asynchronous replication and commits no replica received (their I/O threads
 * stopped), a manual failover goes ahead and the old primary comes back {@code diverged}, read-only
 * and out of traffic, with those commits counted as unshipped; while another instance's move holds
 * its lock on a replica, that failover is refused first, changing nothing. Each test starts its own Sluice and
 * leaves the sandbox as it found it (node 0 the primary again; rebuilt after a divergence).
 */
class FailoverTest {
    private static final String TABLE = "test.failover_commits";
    /** The rows of the transaction replayed on the new primary (no AUTO_INCREMENT: its ids would differ there). */
    private static final String REPLAYED = "test.failover_replayed";
    private static final Duration INTERVAL = Duration.ofMillis(500);
    private static final int DOWN_AFTER = 2;
    private static final int FAILOVER_AFTER = 3;
    private static final Duration SWITCHOVER_TIMEOUT = Duration.ofSeconds(5);
    /** The monitor's connect and query timeouts (its defaults): a check missed takes at most both. */
    private static final Duration CHECK_BOUND = Duration.ofSeconds(2);
    /**
     * From the kill to writes working again: the misses that fire the failover (the first
     * {@code down-after} retried at once, the rest one interval apart), the target's catch-up bound,
     * the monitor seeing it writable (two intervals and a check), and as much again for a loaded
     * 2-core machine.
     */
    private static final Duration WRITES_BACK_BOUND = CHECK_BOUND.multipliedBy(DOWN_AFTER)
            .plus(INTERVAL.multipliedBy(FAILOVER_AFTER + 1)).plus(SWITCHOVER_TIMEOUT)
            .plus(INTERVAL.multipliedBy(2)).plus(CHECK_BOUND).multipliedBy(2);
    private static final Duration SETTLE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SandboxCluster cluster;
    private SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
    }

    /** Per test: a test that leaves a diverged node has the sandbox rebuilt, without this table. */
    @BeforeEach
    void table() {
        // What scripts/sandbox.sh grants the monitor account now; a sandbox made before it lacks them.
        cluster.rootQuery(cluster.primary(), "GRANT RELOAD, READ_ONLY ADMIN ON *.* TO '" + SandboxCluster.MONITOR_USER
                + "'@'127.0.0.1'");
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS " + TABLE
                + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, n BIGINT NOT NULL, note VARCHAR(40))",
                "CREATE TABLE IF NOT EXISTS " + REPLAYED + " (id INT PRIMARY KEY, note VARCHAR(40))");
        cluster.waitForReplicasCaughtUp(SETTLE);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        cluster.restoreHealthy();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE, "DROP TABLE IF EXISTS " + REPLAYED);
        cluster.waitForReplicasCaughtUp(SETTLE);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @AfterEach
    void restore() {
        if (sluice != null) {
            sluice.close();
            sluice = null;
        }
        cluster.restoreHealthy();
        cluster.semiSyncOff();
    }

    @Test
    void aFailoverWhileThePrimaryAnswersIsRefusedAndChangesNothing() {
        sluice = start("manual");
        JsonNode reply = post("/v1/failover", "{}");
        assertThat(reply.get("status").asInt()).as(reply.toString()).isEqualTo(409);
        assertThat(reply.get("error").asText()).contains("the primary 'primary' is reachable").contains("use switchover");
        JsonNode last = describe().get("failover");
        assertThat(last.get("state").asText()).as(last.toString()).isEqualTo("refused");
        assertThat(metrics()).contains("sluice_failovers_total{outcome=\"refused\"} 1.0");
        assertThat(role("primary")).isEqualTo("primary");
        assertThat(cluster.queryString(cluster.primary(), "SELECT @@read_only")).isEqualTo("0");
    }

    @Test
    void aKilledPrimaryIsFailedOverByItselfAndComesBackOutOfTraffic() throws Exception {
        // Each commit acknowledged is on a replica: the failover must lose none of them.
        cluster.semiSyncOn();
        sluice = start("auto");
        SandboxNode old = cluster.primary();
        try (Connection idle = sluice.connect("rw"); Statement idleStatement = idle.createStatement();
                Connection inTx = sluice.connect("rw"); Statement txStatement = inTx.createStatement();
                Connection replayed = DriverManager.getConnection(sluice.mariadbUrl("replay", "useServerPrepStmts=true"));
                PreparedStatement replayedInsert = replayed.prepareStatement("INSERT INTO " + REPLAYED + " VALUES (?, ?)");
                Writer writer = Writer.start(sluice)) {
            idleStatement.execute("SET @v = 42");
            idleStatement.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-1, 'idle before')");
            inTx.setAutoCommit(false);
            txStatement.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-2, 'open transaction')");
            replayed.setAutoCommit(false);
            insertReplayed(replayedInsert, 1, "before the failover");
            await("the writer is under way").atMost(SETTLE).until(() -> writer.acknowledged().size() > 20);

            cluster.kill(old);
            long killedAt = System.nanoTime();
            int ackedAtKill = writer.acknowledged().size();
            await("writes work again").atMost(WRITES_BACK_BOUND).pollInterval(Duration.ofMillis(20))
                    .until(() -> writer.acknowledgedSentAfter(killedAt) > 0);
            System.out.printf("[failover] writes worked again %d ms after the kill%n",
                    Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
            // The writes were released before the last step, the check that the replicas replicate.
            await("the failover is over").atMost(SETTLE)
                    .until(() -> !describe().at("/failover/state").asText().equals("in-progress"));
            JsonNode failover = describe().get("failover");
            assertThat(failover.get("state").asText() + " " + failover.get("trigger").asText() + " from "
                    + failover.get("from").asText()).as(failover.toString()).isEqualTo("done auto from primary");
            String promoted = failover.get("to").asText();
            SandboxNode next = cluster.node(promoted);
            assertThat(role(promoted)).isEqualTo("primary");
            assertThat(role("primary")).isEqualTo("replica");
            System.out.println("[failover] " + failover);

            try (ResultSet rs = idleStatement.executeQuery("/*FORCE_MASTER*/ SELECT @@server_id, @v")) {
                rs.next();
                assertThat(rs.getLong(1)).as("the idle session's next statement runs on the new primary")
                        .isEqualTo(next.serverId());
                assertThat(rs.getLong(2)).as("with its state").isEqualTo(42);
            }
            idleStatement.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-3, 'idle after')");
            SQLException lost = org.assertj.core.api.Assertions.catchThrowableOfType(
                    () -> txStatement.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-4, 'lost')"),
                    SQLException.class);
            assertThat((Throwable) lost).as("the transaction open on the dead primary ends with an error").isNotNull();
            assertThat(lost.getMessage()).contains("did not commit").contains("failover");
            System.out.println("[failover] the open transaction's next statement: " + lost.getMessage());

            // The same on an endpoint with transaction-replay: the transaction (a server-side prepared
            // statement's executions) runs again on the new primary, and the client goes on.
            insertReplayed(replayedInsert, 2, "after the failover");
            replayed.commit();
            assertThat(cluster.queryString(next, "SELECT GROUP_CONCAT(id, ':', note ORDER BY id) FROM " + REPLAYED))
                    .as("the replayed transaction, committed once on the new primary")
                    .isEqualTo("1:before the failover,2:after the failover");
            assertThat(metrics()).contains("sluice_transaction_replays_total{outcome=\"replayed\"} 1.0");

            long after = writer.acknowledged().size();
            await("writes go on on the new primary").atMost(SETTLE).until(() -> writer.acknowledged().size() > after + 20);
            writer.close();
            assertThat(writer.acknowledged().size()).isGreaterThan(ackedAtKill);
            System.out.println("[failover] writer errors: " + writer.errors().size() + ", first ones: "
                    + writer.errors().stream().limit(3).toList());

            Set<Long> missing = new TreeSet<>(writer.acknowledged());
            missing.removeAll(committed(next));
            System.out.println("[failover] acknowledged commits missing on the new primary: " + missing.size()
                    + (missing.isEmpty() ? "" : " " + missing));

            cluster.startAsReplica(old);
            await("Sluice judges the old primary once it is back").atMost(SETTLE).until(() -> !describe()
                    .at("/failover/former-primary").asText().equals("down"));
            JsonNode judged = describe().get("failover");
            System.out.println("[failover] old primary: " + judged.get("former-primary-message").asText());
            String verdict = judged.get("former-primary").asText();
            assertThat(verdict).as(judged.toString()).isIn("rejoined", "diverged");
            assertThat(cluster.queryString(old, "SELECT @@read_only")).as("the old primary is read-only").isEqualTo("1");
            assertThat(role("primary")).isEqualTo("replica");
            assertThat(missing).as("acknowledged commits missing on the new primary, with semi-synchronous "
                    + "replication").isEmpty();
            assertThat(verdict).as("nothing was lost: it rejoins").isEqualTo("rejoined");
            if (verdict.equals("rejoined")) {
                await("the old primary replicates from the new one").atMost(SETTLE)
                        .until(() -> replicatesFrom(old, next));
            }
            for (int i = 0; i < 5; i++) {
                try (ResultSet rs = idleStatement.executeQuery("/*FORCE_MASTER*/ SELECT @@server_id")) {
                    rs.next();
                    assertThat(rs.getLong(1)).as("writes stay on the new primary").isEqualTo(next.serverId());
                }
            }
            assertThat(metrics()).contains("sluice_failovers_total{outcome=\"done\"} 1.0");
        }
    }

    private static void insertReplayed(PreparedStatement insert, int id, String note) throws SQLException {
        insert.setInt(1, id);
        insert.setString(2, note);
        assertThat(insert.executeUpdate()).isEqualTo(1);
    }

    @Test
    void aManualFailoverPromotesTheNamedReplicaOnceThePrimaryIsDownAndTheOldOneComesBackDiverged() throws Exception {
        sluice = start("manual");
        SandboxNode old = cluster.primary();
        SandboxNode ro2 = cluster.node("ro2");
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
            s.execute("SET @v = 7");
            s.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-10, 'before')");
            cluster.waitForReplicasCaughtUp(SETTLE);
            // Two commits acknowledged that no replica receives: asynchronous replication's loss, made sure.
            for (SandboxNode replica : cluster.replicas()) {
                cluster.rootQuery(replica, "STOP SLAVE IO_THREAD");
            }
            s.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-20, 'unshipped')");
            s.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-21, 'unshipped')");
            cluster.kill(old);
            for (SandboxNode replica : cluster.replicas()) {
                // Trying to reach the dead primary, as replicas are when a primary dies.
                cluster.rootQuery(replica, "START SLAVE IO_THREAD");
            }
            await("Sluice sees the primary down").atMost(SETTLE).until(() -> node("primary").get("state").asText()
                    .equals("down"));
            assertThat(describe().at("/failover/state").asText()).as("failover: manual promotes nothing by itself")
                    .isEqualTo("none");

            // Another instance's move in progress (its lock on a node it changes) keeps this one off.
            try (Connection other = cluster.connect(cluster.node("ro1")); Statement lock = other.createStatement();
                    ResultSet got = lock.executeQuery("SELECT GET_LOCK('sluice_primary_move', 0)")) {
                got.next();
                assertThat(got.getInt(1)).isEqualTo(1);
                JsonNode fenced = post("/v1/failover", "{\"to\": \"ro2\"}");
                assertThat(fenced.get("status").asInt()).as(fenced.toString()).isEqualTo(409);
                assertThat(fenced.get("error").asText()).contains("another switchover or failover is changing 'ro1'")
                        .contains("nothing was changed");
                assertThat(role("primary")).isEqualTo("primary");
                assertThat(cluster.queryString(ro2, "SELECT @@read_only")).as("ro2 not promoted").isEqualTo("1");
            }

            JsonNode done = post("/v1/failover", "{\"to\": \"ro2\"}");
            assertThat(done.get("status").asInt()).as(done.toString()).isEqualTo(200);
            assertThat(done.get("from").asText() + " -> " + done.get("to").asText()).isEqualTo("primary -> ro2");
            assertThat(done.get("warnings")).as(done.toString()).isEmpty();
            assertThat(role("ro2")).isEqualTo("primary");
            assertThat(describe().at("/failover/trigger").asText()).isEqualTo("manual");
            for (String name : new String[] {"ro1", "ro3"}) {
                assertThat(replicatesFrom(cluster.node(name), ro2)).as(name + " replicates from ro2").isTrue();
            }
            s.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-11, 'after')");
            try (ResultSet rs = s.executeQuery("/*FORCE_MASTER*/ SELECT @@server_id, @v")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(ro2.serverId());
                assertThat(rs.getLong(2)).isEqualTo(7);
            }
            JsonNode again = post("/v1/failover", "{}");
            assertThat(again.get("status").asInt()).as(again.toString()).isEqualTo(409);
            assertThat(again.get("error").asText()).contains("the primary 'ro2' is reachable");

            cluster.start(old);
            await("Sluice judges the old primary once it is back").atMost(SETTLE).until(() -> !describe()
                    .at("/failover/former-primary").asText().equals("down"));
            JsonNode judged = describe().get("failover");
            assertThat(judged.get("former-primary").asText()).as(judged.toString()).isEqualTo("diverged");
            assertThat(judged.get("unshipped").asLong()).as("the two commits no replica received").isEqualTo(2);
            assertThat(node("primary").get("state").asText()).isEqualTo("diverged");
            assertThat(role("primary")).isEqualTo("replica");
            assertThat(cluster.queryString(old, "SELECT @@read_only")).as("the old primary is read-only").isEqualTo("1");
            assertThat(metrics()).contains("sluice_failover_unshipped_commits_total 2.0");
            try (ResultSet rs = s.executeQuery("/*FORCE_MASTER*/ SELECT @@server_id")) {
                rs.next();
                assertThat(rs.getLong(1)).as("writes stay on the new primary").isEqualTo(ro2.serverId());
            }
        }
        // The old primary holds commits no other node has: only a new sandbox is healthy again.
        cluster.rebuild();
    }

    @Test
    void aCommitStillWaitingForItsSemiSynchronousAcknowledgementWhenThePrimaryDiesDoesNotMakeItDiverge()
            throws Exception {
        cluster.semiSyncOn();
        sluice = start("manual");
        SandboxNode old = cluster.primary();
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement();
                Connection waiting = sluice.connect("rw"); Statement w = waiting.createStatement()) {
            s.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-30, 'before')");
            cluster.waitForReplicasCaughtUp(SETTLE);
            for (SandboxNode replica : cluster.replicas()) {
                cluster.rootQuery(replica, "STOP SLAVE IO_THREAD");
            }
            // No replica can acknowledge it: the commit waits, and the client has no answer yet.
            CompletableFuture<Integer> inFlight = CompletableFuture.supplyAsync(() -> {
                try {
                    return w.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (-31, 'in flight')");
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            });
            await("the commit waits for a replica's acknowledgement").atMost(SETTLE).until(() -> cluster.rootQuery(old,
                    "SELECT variable_value FROM information_schema.global_status WHERE variable_name = "
                            + "'Rpl_semi_sync_master_wait_sessions'").equals("1"));
            cluster.kill(old);
            assertThat(inFlight).as("never acknowledged to the client").failsWithin(SETTLE);
            for (SandboxNode replica : cluster.replicas()) {
                cluster.rootQuery(replica, "START SLAVE IO_THREAD");
            }
            await("Sluice sees the primary down").atMost(SETTLE).until(() -> node("primary").get("state").asText()
                    .equals("down"));
            JsonNode done = post("/v1/failover", "{\"to\": \"ro1\"}");
            assertThat(done.get("status").asInt()).as(done.toString()).isEqualTo(200);

            cluster.startAsReplica(old);
            await("Sluice judges the old primary once it is back").atMost(SETTLE).until(() -> !describe()
                    .at("/failover/former-primary").asText().equals("down"));
            JsonNode judged = describe().get("failover");
            assertThat(judged.get("former-primary").asText())
                    .as("its crash recovery rolled the unacknowledged commit back: " + judged).isEqualTo("rejoined");
            assertThat(cluster.queryString(old, "SELECT COUNT(*) FROM " + TABLE + " WHERE n = -31"))
                    .as("the commit no client saw acknowledged").isEqualTo("0");
            await("the old primary replicates from the new one").atMost(SETTLE)
                    .until(() -> replicatesFrom(old, cluster.node("ro1")));
        }
    }

    // ---- helpers ----

    private static SluiceHarness start(String mode) {
        String config = SluiceHarness.nodesYaml(cluster).replace("interval: 500ms}", "interval: "
                + INTERVAL.toMillis() + "ms, down-after: " + DOWN_AFTER + ", failover: " + mode + ", failover-after: "
                + FAILOVER_AFTER + ", switchover-timeout: " + SWITCHOVER_TIMEOUT.toSeconds() + "s}") + """
                replication: {user: repl, password: repl}
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                  - name: replay
                    listen: 127.0.0.1:0
                    mode: read-write
                    transaction-replay: true
                """;
        return SluiceHarness.fromYaml(cluster, config);
    }

    private static Set<Long> committed(SandboxNode node) throws SQLException {
        Set<Long> out = new HashSet<>();
        try (Connection c = cluster.connect(node); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT n FROM " + TABLE + " WHERE n >= 0")) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private static boolean replicatesFrom(SandboxNode replica, SandboxNode source) throws SQLException {
        try (Connection c = cluster.connect(replica); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
            return rs.next() && rs.getInt("Master_Port") == source.port()
                    && (rs.getString("Slave_IO_Running") + "/" + rs.getString("Slave_SQL_Running")).equals("Yes/Yes");
        }
    }

    private JsonNode describe() {
        return get("/v1/proxy");
    }

    private JsonNode node(String name) {
        return get("/v1/nodes/" + name);
    }

    private String role(String name) {
        return node(name).get("role").asText();
    }

    private String metrics() {
        return send(HttpRequest.newBuilder(uri("/metrics")).timeout(Duration.ofSeconds(10)).GET().build()).body();
    }

    private JsonNode get(String path) {
        return tree(send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).GET().build()).body());
    }

    /** The answer's JSON with its HTTP status added as {@code status}. */
    private JsonNode post(String path, String body) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofMinutes(1))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build());
        com.fasterxml.jackson.databind.node.ObjectNode o = (com.fasterxml.jackson.databind.node.ObjectNode) tree(r.body());
        o.put("status", r.statusCode());
        return o;
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + sluice.adminAddress().getPort() + path);
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode tree(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One client writing through Sluice in autocommit, each row with a number of its own: those
     * whose OK came back are acknowledged; a failed one is never re-sent (it may have committed),
     * the next attempt takes the next number, on a new connection.
     */
    private static final class Writer implements AutoCloseable {
        private final SluiceHarness sluice;
        private final Thread thread = new Thread(this::run, "failover-writer");
        private final List<Long> acknowledged = new CopyOnWriteArrayList<>();
        private final List<Long> acknowledgedSentAt = new CopyOnWriteArrayList<>();
        private final List<String> errors = new CopyOnWriteArrayList<>();
        private final AtomicLong next = new AtomicLong();
        private volatile boolean stop;

        private Writer(SluiceHarness sluice) {
            this.sluice = sluice;
        }

        static Writer start(SluiceHarness sluice) {
            Writer w = new Writer(sluice);
            w.thread.setDaemon(true);
            w.thread.start();
            return w;
        }

        private void run() {
            while (!stop) {
                try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
                    while (!stop) {
                        long n = next.getAndIncrement();
                        long sentAt = System.nanoTime();
                        s.executeUpdate("INSERT INTO " + TABLE + " (n, note) VALUES (" + n + ", 'writer')");
                        acknowledged.add(n);
                        acknowledgedSentAt.add(sentAt);
                        PrimaryTicker.sleep(5);
                    }
                } catch (SQLException e) {
                    errors.add(e.getMessage());
                    PrimaryTicker.sleep(20);
                }
            }
        }

        List<Long> acknowledged() {
            return List.copyOf(acknowledged);
        }

        /** Writes sent after {@code nanos} whose OK came back. */
        long acknowledgedSentAfter(long nanos) {
            return acknowledgedSentAt.stream().filter(t -> t > nanos).count();
        }

        List<String> errors() {
            return List.copyOf(errors);
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(30_000);
        }
    }
}
