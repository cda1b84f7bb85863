package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §10, following role changes: a switchover done in the sandbox as an operator does it (the primary
 * turns read_only, a replica catches up and turns writable, the others are repointed to it) while
 * a client writes through Sluice without pause. Writes follow the writable node within two
 * monitor intervals; a write never runs on a read_only node and none is lost; then the switch
 * back leaves the cluster as it was.
 */
class SwitchoverTest {
    private static final String TABLE = "test.faults_switchover";
    private static final Duration MONITOR_INTERVAL = Duration.ofMillis(500);
    /** Two monitor intervals (a check that sees the change, then the next), plus slack for a loaded 2-core machine. */
    private static final Duration FOLLOW_BOUND = MONITOR_INTERVAL.multipliedBy(2).plusSeconds(2);
    private static final Duration PROGRESS_BOUND = Duration.ofSeconds(10);

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static ReadTargets nodes;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS " + TABLE
                + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, server_id INT NOT NULL)", "TRUNCATE TABLE " + TABLE);
        sluice = SluiceHarness.readWrite(cluster, "");
        nodes = new ReadTargets(sluice, "rw");
    }

    @AfterAll
    static void stop() throws Exception {
        sluice.close();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void writesFollowASwitchoverAndBackWithinTwoIntervalsAndNeverRunOnAReadOnlyNode() throws Exception {
        SandboxNode primary = cluster.primary();
        SandboxNode ro1 = cluster.node("ro1");
        try (Writer writer = Writer.start(sluice)) {
            writer.awaitWritesOn(primary, PROGRESS_BOUND);

            cluster.promote(ro1);
            await("writes follow ro1 once it is writable").atMost(FOLLOW_BOUND).pollInterval(Duration.ofMillis(20))
                    .until(() -> writer.lastWriteRanOn() == ro1.serverId());
            cluster.repointReplicas(ro1);
            assertThat(nodes.node("ro1").role()).as("ro1's role in DescribeDBProxy").isEqualTo("primary");
            assertThat(nodes.node("primary").role()).isEqualTo("replica");
            writer.awaitWritesOn(ro1, PROGRESS_BOUND);

            cluster.promote(primary);
            await("writes follow the primary back").atMost(FOLLOW_BOUND).pollInterval(Duration.ofMillis(20))
                    .until(() -> writer.lastWriteRanOn() == primary.serverId());
            cluster.repointReplicas(primary);
            writer.awaitWritesOn(primary, PROGRESS_BOUND);

            writer.close();
            assertThat(writer.failures()).as("refused writes: only read-only refusals during the switch")
                    .allSatisfy(f -> assertThat(f).containsIgnoringCase("read-only").doesNotContain("Lost connection"));
            cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
            assertThat(rowsOn(primary)).as("every acknowledged write, where it ran, and nothing else")
                    .isEqualTo(writer.acknowledged());
            assertThat(writer.acknowledged().values()).as("nodes that ran writes")
                    .containsOnly((long) primary.serverId(), (long) ro1.serverId());
            assertThat(rowsOn(ro1)).as("the same rows on ro1").isEqualTo(writer.acknowledged());
        }
        assertThat(nodes.node("primary").role()).isEqualTo("primary");
    }

    private static Map<Long, Long> rowsOn(SandboxNode node) throws SQLException {
        Map<Long, Long> rows = new TreeMap<>();
        try (Connection c = cluster.connect(node); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, server_id FROM " + TABLE)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return rows;
    }

    /**
     * One client writing through Sluice without pause: each INSERT records the {@code @@server_id}
     * of the node that ran it and returns it ({@code RETURNING}), so the client knows where every
     * acknowledged write ran; refusals are kept.
     */
    private static final class Writer implements AutoCloseable {
        private final Thread thread = new Thread(this::run, "switchover-writer");
        private final Map<Long, Long> acknowledged = new ConcurrentHashMap<>();
        private final List<String> failures = new CopyOnWriteArrayList<>();
        private volatile long lastServerId;
        private volatile boolean stop;

        static Writer start(SluiceHarness sluice) {
            Writer w = new Writer();
            w.thread.setDaemon(true);
            w.thread.start();
            return w;
        }

        private void run() {
            while (!stop) {
                try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", "socketTimeout=20000"));
                        Statement s = c.createStatement()) {
                    while (!stop) {
                        try (ResultSet rs = s.executeQuery("INSERT INTO " + TABLE
                                + " (server_id) VALUES (@@server_id) RETURNING id, server_id")) {
                            rs.next();
                            acknowledged.put(rs.getLong(1), rs.getLong(2));
                            lastServerId = rs.getLong(2);
                        } catch (SQLException e) {
                            failures.add(e.getMessage());
                            if (c.isClosed()) {
                                throw e;
                            }
                            PrimaryTicker.sleep(20);
                        }
                    }
                } catch (SQLException e) {
                    failures.add("connection: " + e.getMessage());
                }
            }
        }

        long lastWriteRanOn() {
            return lastServerId;
        }

        void awaitWritesOn(SandboxNode node, Duration bound) {
            int from = acknowledged.size();
            await("writes run on " + node).atMost(bound)
                    .until(() -> lastServerId == node.serverId() && acknowledged.size() >= from + 5);
        }

        Map<Long, Long> acknowledged() {
            return new TreeMap<>(acknowledged);
        }

        List<String> failures() {
            return new ArrayList<>(failures);
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(30_000);
        }
    }
}
