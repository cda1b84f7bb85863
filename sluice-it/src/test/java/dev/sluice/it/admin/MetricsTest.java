package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §12: {@code GET /metrics} in the Prometheus text format, parsed line by line. After
 * traffic routed here, the counters moved by at least what was sent — statements by endpoint,
 * target and reason, backend connects, consistency waits and their timeouts with the fallback to
 * the primary, errors Sluice returned — and the levels
 * are the live ones (a session open now is counted, and no longer once it is closed); replication
 * lag, node state and the JVM's own metrics are there.
 */
class MetricsTest {
    private static final int READS = 20;
    private static final int WRITES = 5;
    private static final Duration SETTLE = Duration.ofSeconds(15);

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.metrics_it",
                "CREATE TABLE test.metrics_it (id INT AUTO_INCREMENT PRIMARY KEY, v INT)");
        cluster.waitForReplicasCaughtUp(SETTLE);
        sluice = SluiceHarness.start(cluster, """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    consistency: session
                    consistency-timeout: 2s
                  - name: ro
                    listen: 127.0.0.1:0
                    mode: read-only
                    nodes: [ro1, ro2]
                  - name: fresh
                    listen: 127.0.0.1:0
                    mode: read-write
                    consistency-timeout: 100ms
                """);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
        if (cluster != null) {
            cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.metrics_it");
        }
    }

    @Test
    void afterRoutedTrafficTheCountersMoveAndTheLevelsAreLive() throws Exception {
        PrometheusText before = scrape();
        // Session consistency needs the GTID of each commit, which Sluice reads from session tracking in the
        // primary's OK packets; today it gets that only when the client itself asks for session tracking.
        try (Connection c = DriverManager.getConnection(sluice.mysqlUrl("rw", "trackSessionState=true"));
                Statement s = c.createStatement()) {
            for (int i = 0; i < READS; i++) {
                AdminApiTest.serverId(c);
            }
            for (int i = 0; i < WRITES; i++) {
                s.executeUpdate("INSERT INTO test.metrics_it (v) VALUES (" + i + ")");
                // Session consistency: this read waits until a replica has the write (or goes to the primary).
                s.executeQuery("SELECT COUNT(*) FROM test.metrics_it").close();
            }
            try (Connection ro = sluice.connect("ro"); Statement w = ro.createStatement()) {
                assertThatThrownBy(() -> w.executeUpdate("INSERT INTO test.metrics_it (v) VALUES (-1)"))
                        .isInstanceOf(SQLException.class).hasMessageContaining("read-only");
            }

            // A consistency token no replica will reach: the read waits its 100ms, then falls back to the primary.
            try (Connection f = sluice.connect("fresh"); Statement t = f.createStatement()) {
                t.executeQuery("/*CONSISTENT_WITH=0-1-" + Integer.MAX_VALUE + "*/ SELECT 1").close();
            }

            PrometheusText during = scrape();
            assertThat(increase(before, during, "sluice_statements_routed_total", "endpoint", "rw", "target",
                    "replica")).as("reads routed to replicas").isGreaterThanOrEqualTo(READS);
            assertThat(increase(before, during, "sluice_statements_routed_total", "endpoint", "rw", "target",
                    "primary")).as("writes routed to the primary").isGreaterThanOrEqualTo(WRITES);
            Set<String> reasons = new HashSet<>();
            for (var sample : during.samples("sluice_statements_routed_total", "endpoint", "rw")) {
                assertThat(sample.labels()).containsKeys("node", "target", "reason");
                reasons.add(sample.labels().get("reason"));
            }
            assertThat(reasons).as("a read and a write are routed for different reasons").hasSizeGreaterThan(1)
                    .doesNotContain("");

            assertThat(during.value("sluice_endpoint_sessions", "endpoint", "rw")).as("the session open now")
                    .isEqualTo(1.0);
            assertThat(during.value("sluice_node_sessions", "endpoint", "rw", "node", "primary"))
                    .as("it holds a connection to the primary").isEqualTo(1.0);
            assertThat(increase(before, during, "sluice_backend_connects_total", "outcome", "ok"))
                    .as("backend connections opened").isGreaterThanOrEqualTo(2);
            assertThat(increase(before, during, "sluice_consistency_wait_seconds_count", "endpoint", "rw"))
                    .as("session-consistent reads that waited for a replica").isGreaterThanOrEqualTo(1);
            assertThat(increase(before, during, "sluice_consistency_wait_seconds_count", "endpoint", "fresh",
                    "outcome", "timeout-primary")).as("the wait that timed out and fell back").isEqualTo(1);
            assertThat(increase(before, during, "sluice_statements_routed_total", "endpoint", "fresh", "target",
                    "primary", "reason", "consistency-timeout")).as("the fallback to the primary").isEqualTo(1);
            assertThat(increase(before, during, "sluice_errors_returned_total", "endpoint", "ro"))
                    .as("the refused write on the read-only endpoint").isEqualTo(1);
            for (String replica : new String[] {"ro1", "ro2", "ro3"}) {
                assertThat(during.value("sluice_node_up", "node", replica)).as(replica + " up").isEqualTo(1.0);
                assertThat(during.value("sluice_node_replication_lag_seconds", "node", replica)).as(replica + " lag")
                        .isBetween(0.0, 5.0);
            }
            assertThat(during.sum("jvm_memory_used_bytes")).isPositive();
            assertThat(during.sum("jvm_threads_live_threads")).isPositive();
            assertThat(during.samples("jvm_gc_pause_seconds_count")).isNotNull();
            assertThat(during.value("process_uptime_seconds")).isGreaterThanOrEqualTo(
                    before.value("process_uptime_seconds"));
        }
        await("the closed session leaves the gauges").atMost(SETTLE)
                .until(() -> scrape().value("sluice_endpoint_sessions", "endpoint", "rw") == 0.0
                        && scrape().value("sluice_node_sessions", "endpoint", "rw", "node", "primary") == 0.0);
    }

    private static double increase(PrometheusText before, PrometheusText after, String name, String... labels) {
        return after.sum(name, labels) - before.sum(name, labels);
    }

    private static PrometheusText scrape() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + sluice.adminAddress().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t)
                .startsWith("text/plain; version=0.0.4"));
        return PrometheusText.parse(r.body());
    }
}
