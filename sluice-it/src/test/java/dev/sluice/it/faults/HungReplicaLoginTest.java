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
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A replica that hangs (SIGSTOP) while a session is still connecting to it: its kernel accepts
 * the TCP connection, its server never greets. The session's read, waiting for that connection,
 * must go elsewhere as soon as the monitor finds the replica unreachable — not at the login's
 * timeout (set long here, as a slow network would need), and never not at all.
 *
 * <p>The order is fixed: ro1 is paused before the read is sent, and the monitor needs two missed
 * checks of {@value #MONITOR_TIMEOUT_MS} ms to notice, so the read always meets the hung ro1 first.
 */
class HungReplicaLoginTest {
    private static final int MONITOR_TIMEOUT_MS = 2_000;
    private static final Duration LOGIN_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Detection at the default {@code down-after: 2} (interval, the first check's timeout, the
     * second check's connect and query timeouts: 5.5 s) plus slack for a loaded machine; far below
     * the login timeout.
     */
    private static final Duration ANSWER_BOUND = Duration.ofSeconds(11);
    private static final Duration BOUND = Duration.ofSeconds(30);

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static ReadTargets reads;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        String nodes = SluiceHarness.nodesYaml(cluster).replace("interval: 500ms}",
                "interval: 500ms, query-timeout: " + MONITOR_TIMEOUT_MS + "ms}");
        sluice = SluiceHarness.fromYaml(cluster, nodes + """
                limits: {backend-connect-timeout: %ds}
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 1, ro3: 0}
                """.formatted(LOGIN_TIMEOUT.toSeconds()));
        reads = new ReadTargets(sluice, "rw");
        await("ro1 and ro2 readable").atMost(BOUND)
                .until(() -> reads.readableReplicas().containsAll(ReadTargets.names("ro1", "ro2")));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void aReadWaitingForALoginOnAHungReplicaGoesElsewhereOnceTheMonitorSeesIt() throws Exception {
        SandboxNode ro1 = cluster.node("ro1");
        SandboxNode ro2 = cluster.node("ro2");
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", "socketTimeout=60000"));
                Statement s = c.createStatement()) {
            // The session's first node is the primary; ro1 has no connection of this session yet.
            cluster.pause(ro1);
            try {
                long started = System.nanoTime();
                try (ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                    rs.next();
                    Duration took = Duration.ofNanos(System.nanoTime() - started);
                    assertThat(rs.getLong(1)).as("answered by ro2, ro1 being hung").isEqualTo(ro2.serverId());
                    assertThat(took).as("time to the answer").isLessThan(ANSWER_BOUND);
                }
            } finally {
                cluster.resume(ro1);
            }
        }
    }
}
