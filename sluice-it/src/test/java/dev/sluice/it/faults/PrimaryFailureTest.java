package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

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
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BEHAVIOUR §4, primary failure, made for real: the primary killed (SIGKILL) under sysbench
 * {@code oltp_read_write} through Sluice. Writes — sysbench's and a probe's — get a clear error at
 * once, none hangs, while reads go on on the replicas; once the primary is restarted (and its
 * replicas reconnected to it) writes work again through the same Sluice, never restarted.
 */
class PrimaryFailureTest {
    private static final String TABLE = "test.faults_primary_failure";
    /** Far below any hang, far above a refused connection on a loaded machine. */
    private static final Duration CLEAR_ERROR_BOUND = Duration.ofSeconds(5);
    private static final Duration PROGRESS_BOUND = Duration.ofSeconds(15);
    private static final int SYSBENCH_THREADS = 8;
    /** Longer than the test: the run must end because of the kill, not its clock. */
    private static final int SYSBENCH_SECONDS = 120;
    /** From the kill to the end of sysbench: each client's error, plus sysbench's own exit. */
    private static final Duration SYSBENCH_END_BOUND = Duration.ofSeconds(10);
    private static final int READ_SESSIONS = 4;
    private static final int WRITE_ATTEMPTS = 3;

    @TempDir
    static Path dir;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static ReadTargets reads;

    @BeforeAll
    static void start() throws Exception {
        cluster = SandboxCluster.get();
        Sysbench.createDatabase(cluster);
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS " + TABLE
                + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, server_id INT NOT NULL)");
        new Sysbench(cluster.primary().port(), dir).prepare();
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.readWrite(cluster, "balancer: weighted");
        reads = new ReadTargets(sluice, "rw");
    }

    @AfterAll
    static void stop() throws Exception {
        sluice.close();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
        Sysbench.dropDatabase(cluster);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void aKilledPrimaryFailsWritesAtOnceWhileReadsGoOnAndWritesWorkAgainOnceItIsBack() throws Exception {
        SandboxNode primary = cluster.primary();
        // sysbench runs far longer than the test: only the primary's death may end it. It cannot
        // outlive a lost connection (its reconnect is broken with libmariadb, akopytov/sysbench#527,
        // and it crashes), so every error is fatal to it (--mysql-ignore-errors=none, its default):
        // each of its clients must get an error — none may hang — and the run end soon after the kill.
        Sysbench.Run load = new Sysbench(sluice.port("rw"), dir).run("oltp_read_write", SYSBENCH_THREADS,
                SYSBENCH_SECONDS);
        try (ReadLoad readers = ReadLoad.start(sluice, "rw", READ_SESSIONS)) {
            await("sysbench writes reach the primary").atMost(PROGRESS_BOUND).until(() -> statements("primary") > 100);
            assertThat(write()).isEqualTo(primary.serverId());

            cluster.kill(primary);

            for (int i = 0; i < WRITE_ATTEMPTS; i++) {
                long started = System.nanoTime();
                SQLException refused = catchThrowableOfType(SQLException.class, PrimaryFailureTest::write);
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                assertThat((Throwable) refused).as("a write while the primary is down").isNotNull();
                assertThat(refused.getMessage()).as("the write's error says the primary is unavailable")
                        .contains("backend 'primary' is unavailable");
                assertThat(took).as("time to the write's error (no hang)").isLessThan(CLEAR_ERROR_BOUND);
            }
            assertThat(load.process().waitFor(SYSBENCH_END_BOUND.toSeconds(), TimeUnit.SECONDS))
                    .as("every sysbench client got its error (none hangs)").isTrue();
            String out = load.finish();
            assertThat(out).as("sysbench's errors name what failed").contains("FATAL")
                    .containsPattern("backend 'primary'|Lost connection");
            long[] whilePrimaryDown = readers.answeredPerSession();
            Map<String, Long> answersBefore = answersPerReplica(readers);
            await("reads go on on every replica").atMost(PROGRESS_BOUND)
                    .until(() -> readers.everySessionAnsweredSince(whilePrimaryDown, 10)
                            && cluster.replicas().stream().allMatch(
                                    r -> readers.answeredBy(r.name()) > answersBefore.get(r.name())));
            assertThat(reads.readableReplicas()).as("readable replicas while the primary is down")
                    .containsExactly("ro1", "ro2", "ro3");

            cluster.start(primary);

            await("writes work again through the same Sluice").atMost(PROGRESS_BOUND).ignoreExceptions()
                    .until(() -> write() == primary.serverId());
            assertThat(readers.errors()).as("errors seen by read-only sessions").isEmpty();
        } finally {
            load.process().destroyForcibly();
        }
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.replicatesFromPrimary(replica)).as(replica + " replicates from the restarted primary")
                    .isTrue();
        }
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        String written = cluster.queryString(primary, "SELECT COUNT(*) FROM " + TABLE);
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.queryString(replica, "SELECT COUNT(*) FROM " + TABLE))
                    .as("rows written through Sluice, as " + replica + " has them").isEqualTo(written);
        }
    }

    /** One write through a new Sluice session; returns the server_id of the node that ran it. */
    private static int write() throws SQLException {
        String url = sluice.mariadbUrl("rw", "socketTimeout=30000&connectTimeout=30000");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("INSERT INTO " + TABLE
                        + " (server_id) VALUES (@@server_id) RETURNING server_id")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static Map<String, Long> answersPerReplica(ReadLoad readers) {
        Map<String, Long> out = new HashMap<>();
        for (SandboxNode r : cluster.replicas()) {
            out.put(r.name(), readers.answeredBy(r.name()));
        }
        return out;
    }

    private static long statements(String node) {
        var load = reads.node(node).endpoints().get("rw");
        return load == null ? 0 : load.statements();
    }
}
