package dev.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The harness's fault injection, and that {@link SandboxCluster#restoreHealthy()} undoes each
 * fault: the rest of the suite relies on both.
 */
class SandboxFaultsTest {

    private static final String TABLE = "test.sandbox_faults";

    private static SandboxCluster cluster;

    /** Unique per test run: the sandbox keeps its data from one run to the next. */
    private final long id = System.nanoTime();

    @BeforeAll
    static void startCluster() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS " + TABLE + " (id BIGINT PRIMARY KEY, v INT)");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(10));
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
        assertHealthy();
    }

    @Test
    void aKilledReplicaComesBackAndCatchesUp() {
        SandboxNode ro2 = cluster.node("ro2");
        cluster.kill(ro2);
        assertThat(cluster.isRunning(ro2)).isFalse();
        cluster.exec(cluster.primary(), "INSERT INTO " + TABLE + " VALUES (" + id + ", 1)");

        cluster.start(ro2);

        assertThat(cluster.queryString(ro2, "SELECT v FROM " + TABLE + " WHERE id = " + id)).isEqualTo("1");
    }

    @Test
    void aKilledPrimaryComesBackWithItsReplicasAttached() {
        cluster.kill(cluster.primary());
        assertThat(cluster.isRunning(cluster.primary())).isFalse();

        cluster.start(cluster.primary());

        cluster.exec(cluster.primary(), "INSERT INTO " + TABLE + " VALUES (" + id + ", 2)");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(10));
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.queryString(replica, "SELECT v FROM " + TABLE + " WHERE id = " + id)).isEqualTo("2");
        }
    }

    @Test
    void aPausedNodeIsResumedByRestoreHealthy() {
        SandboxNode ro1 = cluster.node("ro1");
        cluster.pause(ro1);
        assertThat(cluster.isPaused(ro1)).isTrue();
        assertThat(cluster.isRunning(ro1)).isTrue();
        // restore() resumes it
    }

    @Test
    void aReplicaWithoutItsSqlThreadFallsBehindUntilRestored() {
        SandboxNode ro3 = cluster.node("ro3");
        cluster.stopSqlThread(ro3);

        cluster.exec(cluster.primary(), "INSERT INTO " + TABLE + " VALUES (" + id + ", 3)");

        assertThat(cluster.queryString(ro3, "SELECT COUNT(*) FROM " + TABLE + " WHERE id = " + id)).isEqualTo("0");
        cluster.startReplication(ro3);
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(10));
        assertThat(cluster.queryString(ro3, "SELECT COUNT(*) FROM " + TABLE + " WHERE id = " + id)).isEqualTo("1");
        cluster.stopReplication(ro3); // left stopped on purpose: restore() must restart it
    }

    @Test
    void aSwitchoverIsUndoneByRestoreHealthy() {
        SandboxNode ro1 = cluster.node("ro1");
        cluster.switchover(ro1);

        assertThat(cluster.queryString(ro1, "SELECT @@read_only")).isEqualTo("0");
        assertThat(cluster.queryString(cluster.primary(), "SELECT @@read_only")).isEqualTo("1");
        // Writes on the new primary must survive the way back.
        cluster.exec(ro1, "INSERT INTO " + TABLE + " VALUES (" + id + ", 4)");

        cluster.restoreHealthy();

        assertThat(cluster.queryString(cluster.primary(), "SELECT v FROM " + TABLE + " WHERE id = " + id)).isEqualTo("4");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(10));
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.queryString(replica, "SELECT v FROM " + TABLE + " WHERE id = " + id)).isEqualTo("4");
        }
    }

    private static void assertHealthy() {
        assertThat(cluster.queryString(cluster.primary(), "SELECT @@read_only")).isEqualTo("0");
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.isPaused(replica)).isFalse();
            assertThat(cluster.queryString(replica, "SELECT @@read_only")).isEqualTo("1");
            assertThat(cluster.queryString(replica, "SELECT @@server_id")).isEqualTo(Integer.toString(replica.serverId()));
        }
    }
}
