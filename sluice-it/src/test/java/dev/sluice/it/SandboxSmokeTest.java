package dev.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.protocol.response.ErrorCodes;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The sandbox cluster itself: four nodes that can be told apart, replication, read-only replicas. */
class SandboxSmokeTest {

    private static SandboxCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = SandboxCluster.get();
    }

    @Test
    void everyNodeAnswersWithItsOwnServerId() {
        assertThat(cluster.nodes()).extracting(SandboxNode::name).containsExactly("primary", "ro1", "ro2", "ro3");
        for (SandboxNode node : cluster.nodes()) {
            assertThat(cluster.serverIdOf(node)).as("server_id of %s", node).isEqualTo(node.serverId());
        }
        assertThat(cluster.nodes()).extracting(SandboxNode::serverId).containsExactly(1, 2, 3, 4);
    }

    @Test
    void aWriteOnThePrimaryReachesEveryReplica() {
        String marker = "smoke-" + System.nanoTime();
        cluster.exec(cluster.primary(),
                "CREATE TABLE IF NOT EXISTS test.sandbox_smoke (id INT AUTO_INCREMENT PRIMARY KEY, marker VARCHAR(64))",
                "INSERT INTO test.sandbox_smoke (marker) VALUES ('" + marker + "')");

        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(10));

        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.queryString(replica, "SELECT COUNT(*) FROM test.sandbox_smoke WHERE marker = '" + marker + "'"))
                    .as("rows with the marker on %s", replica)
                    .isEqualTo("1");
        }
    }

    @Test
    void replicasAreReadOnlyForTheApplicationAccount() throws SQLException {
        assertThat(cluster.queryString(cluster.primary(), "SELECT @@read_only")).isEqualTo("0");
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS test.sandbox_read_only (id INT PRIMARY KEY)");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(10));

        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.queryString(replica, "SELECT @@read_only")).as("read_only on %s", replica).isEqualTo("1");
            try (Connection connection = cluster.connect(replica); Statement statement = connection.createStatement()) {
                assertThatThrownBy(() -> statement.execute("INSERT INTO test.sandbox_read_only VALUES (1)"))
                        .as("a write on %s", replica)
                        .isInstanceOfSatisfying(SQLException.class,
                                e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCodes.ER_OPTION_PREVENTS_STATEMENT));
            }
        }
    }
}
