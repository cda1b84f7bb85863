package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.admin.NodeDescription;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole worked-case table of BEHAVIOUR §4 (minimum reserved nodes) end to end, on the sandbox's
 * 1 primary + 3 replicas with every lag made for real while the primary keeps writing:
 * "lagging over the threshold" is {@code MASTER_DELAY = 600}, "lagging under it" is
 * {@code MASTER_DELAY = 1}, "broken" ({@code -1}) is {@code STOP SLAVE} or
 * {@code STOP SLAVE SQL_THREAD}, and {@code 0} is a healthy replica.
 *
 * <p>The threshold is 3 s instead of the table's 30 s: only which side of it a lag is on counts.
 * The endpoint runs with no reserved node while the lags are set up, so that no replica is
 * "already serving reads" because of an earlier case; each case then sets {@code N} (and the
 * weights) with ModifyDBProxyEndpoint, checks which replicas Sluice calls readable and which
 * nodes really answer reads, and goes back to {@code N = 0}.
 */
class ReservedNodesTableTest {
    private static final long THRESHOLD_SECONDS = 3;
    private static final int OVER_DELAY_SECONDS = 600;
    private static final int UNDER_DELAY_SECONDS = 1;
    private static final Duration MONITOR_BOUND = Duration.ofSeconds(20);
    private static final String AUTO = "\"auto\"";
    private static final String BASELINE = "{\"min-reserved-nodes\": 0, \"weights\": \"auto\"}";

    /** What a replica's replication looks like to the monitor. */
    private enum Lag { UNDER, OVER, BROKEN }

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static ReadTargets reads;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        PrimaryTicker.createTable(cluster);
        sluice = SluiceHarness.readWrite(cluster, """
                balancer: weighted
                max-replication-lag: 3s
                min-reserved-nodes: 0
                """);
        reads = new ReadTargets(sluice, "rw");
    }

    @AfterAll
    static void stop() throws Exception {
        sluice.close();
        PrimaryTicker.dropTable(cluster);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    /** Also undoes any MASTER_DELAY a failed test left (it re-attaches every replica then). */
    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void everyWorkedCaseOfTheReservedNodesTableHoldsWithRealLags() throws Exception {
        SandboxNode ro1 = cluster.node("ro1");
        SandboxNode ro2 = cluster.node("ro2");
        SandboxNode ro3 = cluster.node("ro3");
        try (PrimaryTicker ticker = PrimaryTicker.start(cluster)) {
            // lags 0 / 40 / 40
            cluster.delayReplication(ro2, OVER_DELAY_SECONDS);
            cluster.delayReplication(ro3, OVER_DELAY_SECONDS);
            awaitMonitorSees(Lag.UNDER, Lag.OVER, Lag.OVER);
            assertCase(0, AUTO, "ro1");
            assertCase(1, AUTO, "ro1");

            // lags 40 / 50 / 60
            cluster.delayReplication(ro1, OVER_DELAY_SECONDS);
            awaitMonitorSees(Lag.OVER, Lag.OVER, Lag.OVER);
            assertCase(0, AUTO);
            assertCase(1, AUTO, "ro1");

            // lags -1 / 50 / 60
            cluster.stopReplication(ro1);
            awaitMonitorSees(Lag.BROKEN, Lag.OVER, Lag.OVER);
            assertCase(1, AUTO, "ro2");

            // lags -1 / -1 / -1 (ro2 with its SQL thread stopped, the others with STOP SLAVE)
            cluster.stopSqlThread(ro2);
            cluster.stopReplication(ro3);
            awaitMonitorSees(Lag.BROKEN, Lag.BROKEN, Lag.BROKEN);
            assertCase(1, AUTO, "ro1");
            // the weighted cases, "any" lags: these
            assertCase(2, weights(0, 20, 0), "ro2");
            assertCase(2, weights(0, 0, 0));
            assertCase(2, weights(0, 20, 20), "ro2", "ro3");

            // lags 20 / -1 / -1
            cluster.delayReplication(ro1, UNDER_DELAY_SECONDS);
            awaitMonitorSees(Lag.UNDER, Lag.BROKEN, Lag.BROKEN);
            assertCase(2, AUTO, "ro1", "ro2");

            // lags 20 / -1 / 60
            cluster.startReplication(ro3);
            awaitMonitorSees(Lag.UNDER, Lag.BROKEN, Lag.OVER);
            assertCase(2, AUTO, "ro1", "ro3");

            // lags 20 / 60 / 40
            cluster.startReplication(ro2);
            awaitMonitorSees(Lag.UNDER, Lag.OVER, Lag.OVER);
            assertCase(2, AUTO, "ro1", "ro2");
        }

        for (SandboxNode replica : cluster.replicas()) {
            cluster.delayReplication(replica, 0);
        }
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.replicatesFromPrimary(replica)).as(replica + " restored").isTrue();
        }
        awaitMonitorSees(Lag.UNDER, Lag.UNDER, Lag.UNDER);
        assertCase(0, AUTO, "ro1", "ro2", "ro3");
    }

    /**
     * Sets {@code N} and the weights, then checks the readable set and where reads run: on
     * {@code readable}, or on the primary when it is empty.
     */
    private static void assertCase(int reserved, String weights, String... readable) {
        String change = "{\"min-reserved-nodes\": " + reserved + ", \"weights\": " + weights + "}";
        Set<String> expected = ReadTargets.names(readable);
        EndpointSettings.modify(sluice, "rw", change);
        try {
            String lags = describeLags();
            assertThat(reads.readableReplicas()).as("readable replicas with " + change + " and " + lags)
                    .isEqualTo(expected);
            assertThat(reads.nodesServingReads()).as("nodes answering reads with " + change + " and " + lags)
                    .isEqualTo(expected.isEmpty() ? ReadTargets.names("primary") : expected);
        } finally {
            EndpointSettings.modify(sluice, "rw", BASELINE);
        }
    }

    private static String weights(int ro1, int ro2, int ro3) {
        return "{\"primary\": 0, \"ro1\": " + ro1 + ", \"ro2\": " + ro2 + ", \"ro3\": " + ro3 + "}";
    }

    /** Waits until the monitor reports each replica (ro1, ro2, ro3) as given. */
    private static void awaitMonitorSees(Lag ro1, Lag ro2, Lag ro3) {
        Map<String, Lag> wanted = new LinkedHashMap<>();
        wanted.put("ro1", ro1);
        wanted.put("ro2", ro2);
        wanted.put("ro3", ro3);
        await("the monitor sees " + wanted).atMost(MONITOR_BOUND).pollInterval(Duration.ofMillis(100))
                .until(() -> wanted.entrySet().stream().allMatch(e -> seenAs(reads.node(e.getKey()), e.getValue())));
    }

    private static boolean seenAs(NodeDescription n, Lag lag) {
        boolean running = n.state().equals("up") && n.replication().equals("running") && n.lagSeconds() != null;
        return switch (lag) {
            case UNDER -> running && n.lagSeconds() <= THRESHOLD_SECONDS;
            case OVER -> running && n.lagSeconds() > THRESHOLD_SECONDS;
            case BROKEN -> n.state().equals("up") && n.replication().equals("broken");
        };
    }

    private static String describeLags() {
        StringBuilder b = new StringBuilder("lags");
        for (SandboxNode r : cluster.replicas()) {
            NodeDescription n = reads.node(r.name());
            b.append(' ').append(r.name()).append('=').append(n.replication().equals("broken") ? "-1" : n.lagSeconds());
        }
        return b.toString();
    }
}
