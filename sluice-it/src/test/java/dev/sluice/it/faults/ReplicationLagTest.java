package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.admin.NodeDescription;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §4, the latency threshold, with lag made for real: a replica that stops applying the
 * primary's writes (its SQL thread stopped, or a MASTER_DELAY) while the primary keeps writing
 * stops taking reads once its lag is over {@code max-replication-lag}, within two monitor
 * intervals; once it replicates normally again it takes reads again.
 */
class ReplicationLagTest {
    private static final Duration MONITOR_INTERVAL = Duration.ofMillis(500);
    private static final Duration THRESHOLD = Duration.ofSeconds(2);
    /**
     * Lag is counted in whole seconds and "over" the threshold means above it, so a replica that
     * lacks a write is over a 2 s threshold once that write is 3 s old.
     */
    private static final Duration OVER_THRESHOLD = THRESHOLD.plusSeconds(1);
    /** Two monitor intervals (a check that sees the change, then the next), plus slack for a loaded 2-core machine. */
    private static final Duration LEAVE_BOUND = MONITOR_INTERVAL.multipliedBy(2).plusSeconds(2);
    private static final Duration COME_BACK_BOUND = Duration.ofSeconds(15);
    private static final int NO_DELAY = 0;
    /** Longer than any test: the delayed replica applies nothing while it is set. */
    private static final int LONG_DELAY_SECONDS = 600;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static ReadTargets reads;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        PrimaryTicker.createTable(cluster);
        sluice = SluiceHarness.readWrite(cluster, """
                balancer: weighted
                max-replication-lag: 2s
                """);
        reads = new ReadTargets(sluice, "rw");
    }

    @AfterAll
    static void stop() throws Exception {
        sluice.close();
        PrimaryTicker.dropTable(cluster);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @BeforeEach
    void everyReplicaServesReads() {
        await("every replica serves reads").atMost(COME_BACK_BOUND)
                .until(() -> reads.nodesServingReads().equals(ReadTargets.names("ro1", "ro2", "ro3")));
    }

    /** Also undoes any MASTER_DELAY a failed test left (it re-attaches every replica then). */
    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void aReplicaWithoutItsSqlThreadLeavesReadsOnceItLagsAndComesBackAfterStartSlave() throws Exception {
        SandboxNode ro1 = cluster.node("ro1");
        cluster.stopSqlThread(ro1);
        try (PrimaryTicker ticker = PrimaryTicker.start(cluster)) {
            long firstMissedWrite = System.nanoTime();
            sleepUntil(firstMissedWrite + OVER_THRESHOLD.toNanos());
            assertThat(rows(ro1)).as("ro1 really lacks the primary's writes").isLessThan(rows(cluster.primary()));

            await("reads leave ro1 within two monitor intervals").atMost(LEAVE_BOUND)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> !reads.nodesServingReads().contains("ro1"));
            assertThat(reads.readableReplicas()).containsExactly("ro2", "ro3");
            assertThat(reads.node("ro1").replication()).as("a stopped SQL thread is broken replication")
                    .isEqualTo("broken");
            assertThat(reads.nodesServingReads()).as("reads stay off ro1 while it lags").containsExactly("ro2", "ro3");
        }

        cluster.startReplication(ro1);

        await("ro1 serves reads again after START SLAVE").atMost(COME_BACK_BOUND)
                .until(() -> reads.nodesServingReads().contains("ro1"));
    }

    @Test
    void aDelayedReplicaLeavesReadsOnceItsLagIsOverTheThresholdAndComesBackWhenTheDelayEnds() throws Exception {
        SandboxNode ro2 = cluster.node("ro2");
        cluster.delayReplication(ro2, LONG_DELAY_SECONDS);
        try (PrimaryTicker ticker = PrimaryTicker.start(cluster)) {
            long firstMissedWrite = System.nanoTime();
            sleepUntil(firstMissedWrite + OVER_THRESHOLD.toNanos());
            assertThat(rows(ro2)).as("ro2 really lacks the primary's writes").isLessThan(rows(cluster.primary()));

            await("reads leave ro2 within two monitor intervals").atMost(LEAVE_BOUND)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> !reads.nodesServingReads().contains("ro2"));
            NodeDescription seen = reads.node("ro2");
            assertThat(seen.replication()).as("a delayed replica replicates: it is out for its lag only")
                    .isEqualTo("running");
            assertThat(seen.lagSeconds()).as("ro2's lag as the monitor sees it").isGreaterThan(THRESHOLD.toSeconds());
            assertThat(reads.readableReplicas()).containsExactly("ro1", "ro3");
        }

        cluster.delayReplication(ro2, NO_DELAY);

        await("ro2 serves reads again once it caught up").atMost(COME_BACK_BOUND)
                .until(() -> reads.nodesServingReads().contains("ro2"));
        assertThat(reads.node("ro2").lagSeconds()).isLessThanOrEqualTo(THRESHOLD.toSeconds());
    }

    private static long rows(SandboxNode node) {
        return Long.parseLong(cluster.queryString(node, "SELECT COUNT(*) FROM " + PrimaryTicker.TABLE));
    }

    private static void sleepUntil(long nanoTime) {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            PrimaryTicker.sleep(left / 1_000_000 + 1);
        }
    }
}
