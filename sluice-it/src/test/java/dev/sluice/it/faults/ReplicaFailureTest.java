package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.admin.NodeDescription;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BEHAVIOUR §4, replica failure, made for real: a replica killed (SIGKILL) under a 16-thread sysbench
 * {@code oltp_read_only} costs the clients no error — reads in flight on it are retried elsewhere —
 * and it takes reads again once restarted; a replica that hangs (SIGSTOP) loses its reads once
 * the monitor has missed {@code down-after} checks of it, and the sessions whose read was stuck on it get their answer from another
 * node instead of hanging.
 */
class ReplicaFailureTest {
    private static final Duration MONITOR_INTERVAL = Duration.ofMillis(500);
    /** The monitor's default timeouts: a check not answered within them is missed. */
    private static final Duration MONITOR_QUERY_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration MONITOR_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /**
     * A hung node is down at the default {@code down-after: 2}: the next tick, its first check's
     * timeout, the second check (at once, on a new connection) and its timeout; plus slack for a
     * loaded 2-core machine.
     */
    private static final Duration DETECTION_BOUND = MONITOR_INTERVAL.plus(MONITOR_QUERY_TIMEOUT)
            .plus(MONITOR_CONNECT_TIMEOUT).plus(MONITOR_QUERY_TIMEOUT).plusSeconds(3);
    private static final Duration PROGRESS_BOUND = Duration.ofSeconds(10);
    private static final int SYSBENCH_THREADS = 16;
    private static final int SYSBENCH_SECONDS = 10;
    private static final int READ_SESSIONS = 8;

    @TempDir
    static Path dir;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static Sysbench sysbench;
    private static ReadTargets reads;

    @BeforeAll
    static void start() throws Exception {
        cluster = SandboxCluster.get();
        Sysbench.createDatabase(cluster);
        sluice = SluiceHarness.readWrite(cluster, "balancer: weighted");
        reads = new ReadTargets(sluice, "rw");
        sysbench = new Sysbench(cluster.primary().port(), dir);
        sysbench.prepare();
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() throws Exception {
        sluice.close();
        Sysbench.dropDatabase(cluster);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void aReplicaKilledUnderOltpReadOnlyCostsNoClientErrorAndRejoinsWhenRestarted() throws Exception {
        SandboxNode ro2 = cluster.node("ro2");
        Sysbench.Run run = new Sysbench(sluice.port("rw"), dir).run("oltp_read_only", SYSBENCH_THREADS,
                SYSBENCH_SECONDS, "--skip_trx=on");
        try {
            await("sysbench reads reach ro2").atMost(PROGRESS_BOUND).until(() -> statements(ro2) > 100);

            cluster.kill(ro2);
            await("ro2 is down and takes no reads").atMost(DETECTION_BOUND)
                    .until(() -> !reads.readableReplicas().contains("ro2"));

            cluster.start(ro2);
            await("ro2 serves reads again").atMost(PROGRESS_BOUND)
                    .until(() -> reads.nodesServingReads().contains("ro2"));
        } finally {
            String out = run.finish();
            assertThat(out).as("sysbench through Sluice while a replica was killed")
                    .doesNotContain("FATAL", "error 2013", "error 2027", "Lost connection");
            assertThat(run.process().exitValue()).as("sysbench exit code:\n" + out).isZero();
            assertThat(Sysbench.reconnects(out)).as("sysbench reconnects:\n" + out).isZero();
            assertThat(Sysbench.queries(out)).isPositive();
        }
    }

    @Test
    void aPausedReplicaLosesItsReadsOnceTheMonitorMarksItDownAndSessionsStuckOnItGoOn() throws Exception {
        SandboxNode ro3 = cluster.node("ro3");
        try (ReadLoad load = ReadLoad.start(sluice, "rw", READ_SESSIONS)) {
            await("ro3 serves reads").atMost(PROGRESS_BOUND).until(() -> load.answeredBy("ro3") > 50);

            cluster.pause(ro3);
            try {
                await("ro3 leaves the readable set").atMost(DETECTION_BOUND)
                        .until(() -> !reads.readableReplicas().contains("ro3"));
                assertThat(reads.node("ro3").state()).isEqualTo("down");

                long[] afterDetection = load.answeredPerSession();
                await("every session goes on, none hangs on ro3").atMost(PROGRESS_BOUND)
                        .until(() -> load.everySessionAnsweredSince(afterDetection, 3));
                long ro3Answers = load.answeredBy("ro3");
                // The balancer's rotation is shared with the loaded sessions, so one session's reads
                // need not visit every readable node: check only that none goes to ro3.
                assertThat(reads.nodesServingReads()).as("reads while ro3 hangs").doesNotContain("ro3");
                assertThat(reads.readableReplicas()).containsExactly("ro1", "ro2");
                assertThat(load.answeredBy("ro3")).as("answers from the hung ro3").isEqualTo(ro3Answers);
            } finally {
                cluster.resume(ro3);
            }

            long before = load.answeredBy("ro3");
            await("ro3 serves reads again once resumed").atMost(PROGRESS_BOUND)
                    .until(() -> load.answeredBy("ro3") > before + 10);
            assertThat(load.errors()).as("errors seen by the reading sessions").isEmpty();
        }
    }

    private static long statements(SandboxNode node) {
        NodeDescription n = reads.node(node.name());
        NodeDescription.NodeLoad load = n.endpoints().get("rw");
        return load == null ? 0 : load.statements();
    }
}
