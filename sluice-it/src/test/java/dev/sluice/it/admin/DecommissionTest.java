package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BEHAVIOUR §8, taking a replica out of service with clients connected:
 * <ul>
 * <li>the managed proxies' graceful decommission — weight → 0, the node's active sessions fall to
 * 0 as short-lived sessions end (new ones never start there), then the node is removed;
 * <li>under long-lived connections (sysbench, a HikariCP pool) weight 0 alone leaves the existing
 * sessions where they are, and {@code POST /v1/nodes/{name}/drain} moves them off at their next
 * transaction boundary: the node's active-session count is 0 within 5 s, and removal follows.
 * </ul>
 * No client sees an error in any of these sequences.
 */
class DecommissionTest {
    /** BEHAVIOUR §8: a drain finishes "in seconds"; 5 s is the bound that makes that checkable. */
    private static final Duration DRAIN_BOUND = Duration.ofSeconds(5);
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final int POOL_SIZE = 16;
    private static final int WORKERS = 6;
    private static final int SYSBENCH_THREADS = 4;
    private static final int BUSY_SECONDS = 3;
    private static final int WAIT_TIMEOUT = 3333;
    private static final int SHORT_SESSION_READS = 5;

    private static SandboxCluster cluster;
    private SluiceHarness sluice;
    private AdminClient admin;

    @TempDir
    static Path dir;

    @BeforeAll
    static void prepare() throws Exception {
        cluster = SandboxCluster.get();
        SysbenchLoad.prepare(cluster, dir);
    }

    @AfterAll
    static void cleanup() throws InterruptedException {
        if (cluster != null) {
            SysbenchLoad.cleanup(cluster);
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @BeforeEach
    void start() {
        sluice = SluiceHarness.readWrite(cluster, "weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}");
        admin = new AdminClient(sluice.adminAddress());
    }

    @AfterEach
    void stop() {
        if (sluice != null) {
            sluice.close();
        }
    }

    @Test
    void weightZeroKeepsSysbenchsSessionsThenDrainEmptiesTheNodeAndRemovalFollows() throws Exception {
        try (SysbenchLoad load = SysbenchLoad.start(sluice.port("rw"), SYSBENCH_THREADS, dir)) {
            await("every sysbench session reads ro3").atMost(SETTLE)
                    .until(() -> admin.activeSessions("ro3", "rw") == SYSBENCH_THREADS);
            admin.ok(admin.patch("/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 100, \"ro2\": 100, "
                    + "\"ro3\": 0}}"));
            long statements = admin.statements("ro3", "rw");
            try (Connection fresh = sluice.connect("rw")) {
                for (int i = 0; i < 30; i++) {
                    assertThat(AdminApiTest.serverId(fresh)).as("a new session never reads a weight-0 node")
                            .isNotEqualTo(cluster.serverIdOf(cluster.node("ro3")));
                }
            }
            await("existing sessions keep reading ro3 at weight 0 (BEHAVIOUR §8)").atMost(SETTLE)
                    .until(() -> admin.statements("ro3", "rw") > statements + 50);
            assertThat(admin.activeSessions("ro3", "rw")).as("weight 0 moves no existing session")
                    .isEqualTo(SYSBENCH_THREADS);

            drainWithinTheBound("ro3");
            assertThat(appConnections(cluster.node("ro3"))).as("connections left on ro3").isZero();
            assertThat(admin.delete("/v1/nodes/ro3").status()).isEqualTo(204);
            load.assertCleanRun();
        }
        assertThat(admin.node("ro3")).isNull();
    }

    @Test
    void drainMovesAHikariPoolOfSixteenOffTheNodeWithinFiveSeconds() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(sluice.mariadbUrl("rw", ""));
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(POOL_SIZE);
        config.setPoolName("decommission");
        List<String> errors = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        try (HikariDataSource pool = new HikariDataSource(config)) {
            try {
                for (int w = 0; w < WORKERS; w++) {
                    Thread t = new Thread(() -> {
                        while (running.get()) {
                            try {
                                readOnce(pool);
                                reads.incrementAndGet();
                            } catch (SQLException | RuntimeException e) {
                                errors.add(e.toString());
                            }
                        }
                    }, "hikari-reader-" + w);
                    t.start();
                    workers.add(t);
                }
                await("the pool's connections have sessions on ro1").atMost(SETTLE)
                        .until(() -> admin.activeSessions("ro1", "rw") >= WORKERS);
                await("the pool holds its 16 connections").atMost(SETTLE)
                        .until(() -> pool.getHikariPoolMXBean().getTotalConnections() == POOL_SIZE);

                drainWithinTheBound("ro1");
                long readsAfterDrain = reads.get();
                await("the pool goes on reading").atMost(SETTLE).until(() -> reads.get() > readsAfterDrain + 50);
                assertThat(admin.activeSessions("ro1", "rw")).as("no session came back to the drained node").isZero();
                assertThat(appConnections(cluster.node("ro1"))).as("connections left on ro1").isZero();
                assertThat(admin.delete("/v1/nodes/ro1").status()).isEqualTo(204);
                long readsAfterRemoval = reads.get();
                await("the pool goes on reading after the removal").atMost(SETTLE)
                        .until(() -> reads.get() > readsAfterRemoval + 50);
                assertThat(pool.getHikariPoolMXBean().getTotalConnections()).as("no pooled connection was dropped")
                        .isEqualTo(POOL_SIZE);
            } finally {
                // The readers stop before the pool closes.
                running.set(false);
                for (Thread t : workers) {
                    t.join(SETTLE.toMillis());
                }
            }
        }
        assertThat(errors).as("errors seen by the pool's clients").isEmpty();
    }

    @Test
    void gracefulDecommissionWaitsForShortSessionsToEndThenRemovesTheNode() throws Exception {
        SandboxNode ro2 = cluster.node("ro2");
        List<String> errors = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong sessions = new AtomicLong();
        List<Long> seenAfterWeightZero = new CopyOnWriteArrayList<>();
        AtomicBoolean weightZero = new AtomicBoolean();
        List<Thread> clients = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            Thread t = new Thread(() -> {
                while (running.get()) {
                    boolean afterChange = weightZero.get();
                    try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""))) {
                        for (int i = 0; i < SHORT_SESSION_READS; i++) {
                            long id = AdminApiTest.serverId(c);
                            if (afterChange) {
                                seenAfterWeightZero.add(id);
                            }
                        }
                        sessions.incrementAndGet();
                    } catch (SQLException | RuntimeException e) {
                        errors.add(e.toString());
                    }
                }
            }, "short-sessions-" + w);
            t.start();
            clients.add(t);
        }
        try {
            await("short sessions use ro2").atMost(SETTLE).until(() -> admin.statements("ro2", "rw") > 20);
            admin.ok(admin.patch("/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 100, \"ro2\": 0, "
                    + "\"ro3\": 100}}"));
            weightZero.set(true);
            await("ro2's active sessions fall to 0 as sessions end").atMost(SETTLE)
                    .until(() -> admin.activeSessions("ro2", "rw") == 0);
            long done = sessions.get();
            await("new sessions go on meanwhile").atMost(SETTLE).until(() -> sessions.get() > done + 10);
            assertThat(admin.activeSessions("ro2", "rw")).as("no new session started on ro2").isZero();
            assertThat(admin.delete("/v1/nodes/ro2").status()).isEqualTo(204);
            long removed = sessions.get();
            await("sessions go on after the removal").atMost(SETTLE).until(() -> sessions.get() > removed + 10);
        } finally {
            running.set(false);
            for (Thread t : clients) {
                t.join(SETTLE.toMillis());
            }
        }
        assertThat(errors).as("errors seen by the clients").isEmpty();
        assertThat(seenAfterWeightZero).as("reads of sessions started after weight 0").isNotEmpty()
                .doesNotContain(cluster.serverIdOf(ro2));
        assertThat(admin.node("ro2")).isNull();
    }

    /**
     * A drain that lands while the node is still answering a session command (sent to every
     * backend, answered to the client by the primary) must still take the session off the node
     * once that answer is in: {@code SET SESSION wait_timeout = … + SLEEP(…)} sleeps on ro1 only, so
     * the client has its answer from the primary while ro1 is still busy with it.
     */
    @Test
    void aDrainReachesASessionWhoseConnectionIsBusyWithASessionCommand() throws Exception {
        SandboxNode ro1 = cluster.node("ro1");
        admin.ok(admin.patch("/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 100}}"));
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
            assertThat(AdminApiTest.serverId(c)).isEqualTo(cluster.serverIdOf(ro1));
            // Sent to every backend (a session command); it sleeps on ro1 only, so the primary answers first.
            s.execute("SET SESSION wait_timeout = " + WAIT_TIMEOUT + " + SLEEP(IF(@@server_id = "
                    + cluster.serverIdOf(ro1) + ", " + BUSY_SECONDS + ", 0))");
            await("ro1 is still running the session command").atMost(Duration.ofSeconds(BUSY_SECONDS)).until(() -> Long.parseLong(
                    cluster.queryString(ro1, "SELECT COUNT(*) FROM information_schema.processlist WHERE info "
                            + "LIKE 'SET SESSION wait_timeout%' AND id <> CONNECTION_ID()")) == 1);
            admin.ok(admin.post("/v1/nodes/ro1/drain", null));
            await("ro1's active sessions reach 0 once its answer is in")
                    .atMost(DRAIN_BOUND.plusSeconds(BUSY_SECONDS))
                    .pollInterval(Duration.ofMillis(100)).until(() -> admin.activeSessions("ro1", "rw") == 0);
            assertThat(AdminApiTest.serverId(c)).as("the session reads elsewhere, without an error")
                    .isNotEqualTo(cluster.serverIdOf(ro1));
            try (ResultSet rs = s.executeQuery("SELECT @@session.wait_timeout")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(WAIT_TIMEOUT);
            }
        }
    }

    /** Drains the node and asserts its active-session count reaches 0 within {@link #DRAIN_BOUND}. */
    private void drainWithinTheBound(String node) {
        AdminClient.Reply r = admin.ok(admin.post("/v1/nodes/" + node + "/drain", null));
        assertThat(r.json().get("draining").asBoolean()).isTrue();
        await(node + "'s active sessions reach 0 after the drain").atMost(DRAIN_BOUND)
                .pollInterval(Duration.ofMillis(100)).until(() -> admin.activeSessions(node, "rw") == 0);
    }

    /** One read through the pool: borrow, query, give back (the pooled connection stays open). */
    private static void readOnce(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@server_id, COUNT(*) FROM sbtest.sbtest1")) {
            assertThat(rs.next()).isTrue();
        }
    }

    private static long appConnections(SandboxNode node) {
        return Long.parseLong(cluster.queryString(node, "SELECT COUNT(*) FROM information_schema.processlist "
                + "WHERE user = '" + SandboxCluster.APP_USER + "' AND id <> CONNECTION_ID()"));
    }
}
