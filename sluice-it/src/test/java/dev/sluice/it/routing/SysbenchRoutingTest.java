package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sysbench through a read-write endpoint (primary weight 0, replicas automatic) and a read-only
 * endpoint: no error at all, and the executions land where BEHAVIOUR §1/§3 say, counted by each
 * node's own {@code Com_stmt_execute} (sysbench prepares every statement).
 */
class SysbenchRoutingTest {
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static Sysbench sysbench;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        cluster = SandboxCluster.get();
        sysbench = new Sysbench(dir);
        sysbench.run(cluster.primary().port(), "oltp_read_write", "cleanup");
        sysbench.run(cluster.primary().port(), "oltp_read_write", "prepare");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(60));
        sluice = SluiceHarness.start(cluster, """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    nodes: [primary, ro1, ro2, ro3]
                    weights: auto
                  - name: ro
                    listen: 127.0.0.1:0
                    mode: read-only
                    nodes: [ro1, ro2]
                """);
        AdminView.awaitReadable(sluice, "rw", "ro1", "ro2", "ro3");
        AdminView.awaitReadable(sluice, "ro", "ro1", "ro2");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            sysbench.run(cluster.primary().port(), "oltp_read_write", "cleanup");
        } finally {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void oltpReadOnlyWithoutTransactionsRunsOnTheReplicasWithoutErrors() throws Exception {
        Map<String, Long> before = executions();
        String run = sysbench.run(sluice.port("rw"), "oltp_read_only", "run", "--threads=4", "--time=4",
                "--skip_trx=on");
        Sysbench.assertNoErrors(run);
        Map<String, Long> done = delta(before);
        assertThat(done.get("primary")).as("executions on the primary (weight 0): " + done).isZero();
        assertThat(done).as("executions per node").allSatisfy((node, n) -> {
            if (!node.equals("primary")) {
                assertThat(n).as(node).isPositive();
            }
        });
    }

    @Test
    void oltpReadOnlyInTransactionsRunsOnThePrimaryWithoutErrors() throws Exception {
        Map<String, Long> before = executions();
        String run = sysbench.run(sluice.port("rw"), "oltp_read_only", "run", "--threads=4", "--time=4");
        Sysbench.assertNoErrors(run);
        Map<String, Long> done = delta(before);
        // BEGIN … COMMIT around every sysbench transaction: BEHAVIOUR §3 keeps all of it on the primary.
        assertThat(done.get("primary")).as("executions on the primary: " + done).isPositive();
        assertThat(done.get("ro1") + done.get("ro2") + done.get("ro3")).as("executions on replicas: " + done).isZero();
    }

    @Test
    void oltpReadWriteRunsWithoutErrorsAndLeavesReplicasInStep() throws Exception {
        // One thread: two sysbench threads deadlock each other now and then (the server's answer to
        // their contention, which sysbench retries and counts as "ignored"), and here any error counts.
        String run = sysbench.run(sluice.port("rw"), "oltp_read_write", "run", "--threads=1", "--time=5");
        Sysbench.assertNoErrors(run);
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(60));
        String primary = checksum(cluster.primary());
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(checksum(replica)).as("tables on " + replica.name() + " vs the primary").isEqualTo(primary);
        }
    }

    @Test
    void oltpReadOnlyThroughTheReadOnlyEndpointRunsOnItsReplicasWithoutErrors() throws Exception {
        Map<String, Long> before = executions();
        String run = sysbench.run(sluice.port("ro"), "oltp_read_only", "run", "--threads=4", "--time=3");
        Sysbench.assertNoErrors(run);
        Map<String, Long> done = delta(before);
        assertThat(done.get("primary")).as("executions on the primary: " + done).isZero();
        assertThat(done.get("ro3")).as("executions on ro3, outside the endpoint: " + done).isZero();
        // Four connections, mapped round-robin: two on each replica.
        assertThat(done.get("ro1")).as("ro1: " + done).isPositive();
        assertThat(done.get("ro2")).as("ro2: " + done).isPositive();
    }

    private static String checksum(SandboxNode node) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= Sysbench.TABLES; i++) {
            b.append(cluster.queryString(node, "SELECT CONCAT(COUNT(*), '/', SUM(k), '/', "
                    + "SUM(CRC32(CONCAT(id, c, pad)))) FROM sbtest.sbtest" + i)).append(' ');
        }
        return b.toString();
    }

    private static Map<String, Long> executions() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (SandboxNode n : cluster.nodes()) {
            counts.put(n.name(), Long.parseLong(cluster.queryString(n, "SELECT VARIABLE_VALUE FROM "
                    + "information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'COM_STMT_EXECUTE'")));
        }
        return counts;
    }

    private static Map<String, Long> delta(Map<String, Long> before) {
        Map<String, Long> now = executions();
        Map<String, Long> delta = new LinkedHashMap<>();
        now.forEach((node, n) -> delta.put(node, n - before.get(node)));
        return delta;
    }
}
