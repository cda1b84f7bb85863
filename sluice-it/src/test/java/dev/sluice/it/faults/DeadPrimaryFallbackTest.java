package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * BEHAVIOUR §4, the moment a primary dies: its replicas see their source go a little before the
 * monitor sees the primary go. For that moment no replica passes the health rules, and a read
 * falls back to the dead primary. The client must still get its rows, from a replica that lost
 * only its source.
 *
 * <p>Made without racing the monitor: the replicas' I/O threads are stopped by hand, so Sluice sends
 * reads to the primary, and the primary is reached through a {@link NodeDoor} that then cuts the
 * session's connection and resets new ones while the monitor's own, opened before, still finds it
 * alive.
 */
class DeadPrimaryFallbackTest {
    private static final Duration MONITOR_BOUND = Duration.ofSeconds(15);

    /** Logs, at DEBUG, each read routed again and where to: the order of events, in the test's log. */
    private static final Logger RETRIES = (Logger) LoggerFactory.getLogger("dev.sluice.server.frontend.ReadRerouting");

    private final SandboxCluster cluster = SandboxCluster.get();

    @BeforeEach
    void logRetries() {
        RETRIES.setLevel(Level.DEBUG);
    }

    @AfterEach
    void restore() throws Exception {
        RETRIES.setLevel(null);
        cluster.restoreHealthy();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void aReadFallingBackToAPrimaryThatJustDiedIsAnsweredByAReplicaThatLostOnlyItsSource() throws Exception {
        SandboxNode primary = cluster.primary();
        try (NodeDoor door = new NodeDoor(primary.port());
                SluiceHarness sluice = SluiceHarness.fromYaml(cluster, door.readWriteConfig(cluster))) {
            ReadTargets reads = new ReadTargets(sluice, "rw");
            await("every replica readable").atMost(MONITOR_BOUND)
                    .until(() -> reads.readableReplicas().equals(ReadTargets.names(cluster.replicas()
                            .toArray(SandboxNode[]::new))));
            door.keepOpenOnes();
            try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
                for (SandboxNode replica : cluster.replicas()) {
                    cluster.exec(replica, "STOP SLAVE IO_THREAD");
                }
                await("no replica readable once every one lost its source").atMost(MONITOR_BOUND)
                        .until(() -> reads.readableReplicas().isEmpty());
                assertThat(serverId(s)).as("a read with no readable replica runs on the primary")
                        .isEqualTo(primary.serverId());

                door.shut();

                Set<Integer> replicaIds = cluster.replicas().stream().map(SandboxNode::serverId)
                        .collect(Collectors.toSet());
                assertThat(serverId(s)).as("the read after the primary died, without an error")
                        .isIn(replicaIds);
            } finally {
                for (SandboxNode replica : cluster.replicas()) {
                    cluster.exec(replica, "START SLAVE IO_THREAD");
                }
            }
        }
    }

    private static int serverId(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT @@server_id")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
