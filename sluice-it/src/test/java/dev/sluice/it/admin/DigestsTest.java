package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.admin.AdminJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §12 against the sandbox: after known statements — point selects, an UPDATE, an IN
 * list of three lengths, a statement that fails — {@code GET /v1/digests} holds exactly their
 * digests with the right counts, errors, rows and primary/replica split; {@code ./sluice top --once}
 * prints them; the latency histograms of {@code /metrics} counted exactly the statements sent; and
 * the pool gauges follow a pooled connection from its session back to the pool.
 */
class DigestsTest {
    private static final String TOKEN = "digests-token";
    private static final Duration SETTLE = Duration.ofSeconds(15);
    private static final int ROWS = 10;
    private static final int POINT_SELECTS = 5;
    private static final int[] IN_LIST_LENGTHS = {1, 3, 7};
    private static final String POINT = "SELECT v FROM test.digests_it WHERE id = ?";
    private static final String IN_LIST = "SELECT v FROM test.digests_it WHERE id IN (...)";
    private static final String UPDATE = "UPDATE test.digests_it SET v = v + ? WHERE id = ?";
    private static final String FAILING = "SELECT nope FROM test.digests_it WHERE id = ?";
    private static final String DURATION = "sluice_statement_duration_seconds";
    private static final long CLI_TIMEOUT_SECONDS = 60;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.digests_it",
                "CREATE TABLE test.digests_it (id INT PRIMARY KEY, v INT)",
                "INSERT INTO test.digests_it SELECT seq, seq FROM seq_1_to_" + ROWS);
        cluster.waitForReplicasCaughtUp(SETTLE);
        sluice = SluiceHarness.fromYaml(cluster, SluiceHarness.nodesYaml(cluster, "token: " + TOKEN, cluster.nodes())
                + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}
                  - name: fresh
                    listen: 127.0.0.1:0
                    mode: read-write
                    consistency-timeout: 100ms
                  - name: pooled
                    listen: 127.0.0.1:0
                    mode: read-write
                    connection-pool: session
                    weights: {primary: 0, ro1: 100, ro2: 0, ro3: 0}
                """);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
        if (cluster != null) {
            cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.digests_it");
        }
    }

    @Test
    void knownStatementsMakeExactlyTheirDigestsAndHistogramCounts() throws Exception {
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
            // The driver's own statements at connect are not the test's.
            assertThat(send("DELETE", "/v1/digests", true).statusCode()).isEqualTo(204);
            PrometheusText before = PrometheusText.parse(send("GET", "/metrics", false).body());

            for (int id = 1; id <= POINT_SELECTS; id++) {
                assertThat(rows(s, "SELECT v FROM test.digests_it WHERE id = " + id)).isEqualTo(1);
            }
            assertThat(s.executeUpdate("UPDATE test.digests_it SET v = v + 1 WHERE id = 3")).isEqualTo(1);
            int inListRows = 0;
            for (int length : IN_LIST_LENGTHS) {
                String ids = IntStream.rangeClosed(1, length).mapToObj(Integer::toString)
                        .collect(Collectors.joining(", "));
                inListRows += rows(s, "SELECT v FROM test.digests_it WHERE id IN (" + ids + ")");
            }
            assertThat(inListRows).isEqualTo(1 + 3 + 7);
            assertThatThrownBy(() -> s.executeQuery("SELECT nope FROM test.digests_it WHERE id = 1"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("Unknown column");
            int sent = POINT_SELECTS + 1 + IN_LIST_LENGTHS.length + 1;

            JsonNode report = AdminJson.MAPPER.readTree(send("GET", "/v1/digests?endpoint=rw&order=count", false)
                    .body());
            assertThat(report.path("order").asText()).isEqualTo("count");
            Map<String, JsonNode> digests = new HashMap<>();
            for (JsonNode d : report.path("digests")) {
                digests.put(d.path("digest").asText(), d);
            }
            assertThat(digests).containsOnlyKeys(POINT, IN_LIST, UPDATE, FAILING);
            expect(digests.get(POINT), POINT_SELECTS, 0, POINT_SELECTS, 0, POINT_SELECTS);
            expect(digests.get(IN_LIST), IN_LIST_LENGTHS.length, 0, inListRows, 0, IN_LIST_LENGTHS.length);
            expect(digests.get(UPDATE), 1, 0, 0, 1, 0);
            expect(digests.get(FAILING), 1, 1, 0, 0, 1);
            for (JsonNode d : digests.values()) {
                assertThat(d.path("endpoint").asText()).isEqualTo("rw");
                assertThat(d.path("account").asText()).isEqualTo(SandboxCluster.APP_USER);
                assertThat(d.path("schema").asText()).isEqualTo("test");
                assertThat(d.path("hints").asText()).isEmpty();
                assertThat(d.path("other").asBoolean()).isFalse();
                assertThat(d.path("totalMicros").asLong()).isPositive();
                assertThat(d.path("maxMicros").asLong()).isGreaterThanOrEqualTo(d.path("meanMicros").asLong())
                        .isGreaterThanOrEqualTo(d.path("p99Micros").asLong());
                assertThat(d.path("lastSeen").asText()).isGreaterThanOrEqualTo(d.path("firstSeen").asText());
            }
            List<String> byCount = names(report);
            assertThat(byCount.get(0)).isEqualTo(POINT);
            assertThat(byCount.get(1)).isEqualTo(IN_LIST);

            PrometheusText after = PrometheusText.parse(send("GET", "/metrics", false).body());
            assertThat(increase(before, after, DURATION + "_count", "endpoint", "rw")).as("every statement sent")
                    .isEqualTo(sent);
            assertThat(increase(before, after, DURATION + "_bucket", "endpoint", "rw", "le", "+Inf")).isEqualTo(sent);
            assertThat(increase(before, after, DURATION + "_count", "endpoint", "rw", "node", "primary"))
                    .as("the UPDATE").isEqualTo(1);
            double onReplicas = 0;
            for (String replica : new String[] {"ro1", "ro2", "ro3"}) {
                onReplicas += increase(before, after, DURATION + "_count", "endpoint", "rw", "node", replica);
            }
            assertThat(onReplicas).isEqualTo(sent - 1);
            assertThat(after.sum(DURATION + "_sum", "endpoint", "rw")).isPositive();
            assertThat(after.sum("sluice_backend_connect_duration_seconds_count", "outcome", "ok"))
                    .as("the session's backend connections, timed").isGreaterThanOrEqualTo(2);

            String top = sluiceTop();
            assertThat(top.lines().findFirst().orElseThrow()).contains("COUNT", "ERRORS", "P99_MS", "DIGEST");
            for (String digest : List.of(POINT, IN_LIST, UPDATE, FAILING)) {
                assertThat(top).contains(digest);
            }
            String pointLine = top.lines().filter(l -> l.endsWith(POINT)).findFirst().orElseThrow();
            assertThat(pointLine.trim().split("\\s+")).startsWith(Integer.toString(POINT_SELECTS), "0");
        }
    }

    @Test
    void aConsistencyWaitIsInItsHistogramAndItsHintInTheDigest() throws Exception {
        PrometheusText before = PrometheusText.parse(send("GET", "/metrics", false).body());
        try (Connection f = sluice.connect("fresh"); Statement t = f.createStatement()) {
            // A position no replica will reach: the read waits its 100ms, then goes to the primary.
            t.executeQuery("/*CONSISTENT_WITH=0-1-" + Integer.MAX_VALUE
                    + "*/ SELECT v FROM test.digests_it WHERE id = 2").close();
        }
        PrometheusText after = PrometheusText.parse(send("GET", "/metrics", false).body());
        String wait = "sluice_consistency_wait_seconds_bucket";
        assertThat(increase(before, after, wait, "endpoint", "fresh", "le", "+Inf")).isEqualTo(1);
        assertThat(increase(before, after, wait, "endpoint", "fresh", "le", "0.05")).as("it waited 100ms")
                .isZero();
        assertThat(increase(before, after, wait, "endpoint", "fresh", "le", "10.0")).isEqualTo(1);
        assertThat(increase(before, after, "sluice_consistency_wait_seconds_sum", "endpoint", "fresh"))
                .isGreaterThanOrEqualTo(0.1);

        JsonNode report = AdminJson.MAPPER.readTree(send("GET", "/v1/digests?endpoint=fresh", false).body());
        JsonNode hinted = null;
        for (JsonNode d : report.path("digests")) {
            if (d.path("digest").asText().equals(POINT)) {
                hinted = d;
            }
        }
        assertThat(hinted).as("the hinted read in %s", report).isNotNull();
        assertThat(hinted.path("hints").asText()).isEqualTo("CONSISTENT_WITH");
        assertThat(hinted.path("onPrimary").asLong()).isEqualTo(1);
        assertThat(hinted.path("totalMicros").asLong()).as("the wait is part of its latency")
                .isGreaterThanOrEqualTo(100_000);
    }

    @Test
    void serverSidePreparedStatementsCountUnderTheirPreparedText() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("fresh", "useServerPrepStmts=true"));
                java.sql.PreparedStatement ps = c.prepareStatement("SELECT v FROM test.digests_it WHERE id = ?")) {
            for (int id = 5; id <= 7; id++) {
                ps.setInt(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
        }
        JsonNode report = AdminJson.MAPPER.readTree(send("GET", "/v1/digests?endpoint=fresh", false).body());
        JsonNode prepared = null;
        for (JsonNode d : report.path("digests")) {
            if (d.path("digest").asText().equals(POINT) && d.path("hints").asText().isEmpty()) {
                prepared = d;
            }
        }
        assertThat(prepared).as("the executes in %s", report).isNotNull();
        assertThat(prepared.path("count").asLong()).isEqualTo(3);
        assertThat(prepared.path("rowsSent").asLong()).isEqualTo(3);
        assertThat(prepared.path("onPrimary").asLong() + prepared.path("onReplicas").asLong()).isEqualTo(3);
    }

    @Test
    void poolUseIsInTheMetricsPerEndpointAndNode() throws Exception {
        try (Connection p = sluice.connect("pooled"); Statement s = p.createStatement()) {
            assertThat(rows(s, "SELECT v FROM test.digests_it WHERE id = 4")).isEqualTo(1);
            PrometheusText during = PrometheusText.parse(send("GET", "/metrics", false).body());
            assertThat(during.value("sluice_pool_connections_in_use", "endpoint", "pooled", "node", "ro1"))
                    .as("the session's connection to ro1").isEqualTo(1.0);
            assertThat(during.value("sluice_pool_waiting", "endpoint", "pooled", "node", "ro1")).isZero();
            assertThat(during.value("sluice_pool_connections_idle", "endpoint", "pooled", "node", "ro2")).isZero();
            assertThat(during.samples("sluice_pool_connections_in_use", "endpoint", "rw"))
                    .as("an endpoint without a pool has no pool series").isEmpty();
        }
        org.awaitility.Awaitility.await("the connection back in the pool").atMost(SETTLE).until(() -> {
            PrometheusText after = PrometheusText.parse(send("GET", "/metrics", false).body());
            return after.value("sluice_pool_connections_idle", "endpoint", "pooled", "node", "ro1") == 1.0
                    && after.value("sluice_pool_connections_in_use", "endpoint", "pooled", "node", "ro1") == 0.0;
        });
    }

    private static void expect(JsonNode d, long count, long errors, long rows, long onPrimary, long onReplicas) {
        assertThat(d.path("count").asLong()).as("count of %s", d).isEqualTo(count);
        assertThat(d.path("errors").asLong()).as("errors of %s", d).isEqualTo(errors);
        assertThat(d.path("rowsSent").asLong()).as("rows of %s", d).isEqualTo(rows);
        assertThat(d.path("onPrimary").asLong()).as("on the primary: %s", d).isEqualTo(onPrimary);
        assertThat(d.path("onReplicas").asLong()).as("on replicas: %s", d).isEqualTo(onReplicas);
    }

    private static List<String> names(JsonNode report) {
        List<String> names = new java.util.ArrayList<>();
        report.path("digests").forEach(d -> names.add(d.path("digest").asText()));
        return names;
    }

    private static int rows(Statement s, String sql) throws SQLException {
        int n = 0;
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                n++;
            }
        }
        return n;
    }

    private static double increase(PrometheusText before, PrometheusText after, String name, String... labels) {
        return after.sum(name, labels) - before.sum(name, labels);
    }

    private static HttpResponse<String> send(String method, String path, boolean withToken)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sluice.adminAddress().getPort()
                + path)).method(method, HttpRequest.BodyPublishers.noBody());
        if (withToken) {
            b.header("Authorization", "Bearer " + TOKEN);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code ./sluice top --once}, the launcher users run, against this Sluice's admin API. */
    private static String sluiceTop() throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("sluice.root", "")).toAbsolutePath();
        Process p = new ProcessBuilder(root.resolve("sluice").toString(), "top", "--once", "--endpoint", "rw",
                "--admin", "127.0.0.1:" + sluice.adminAddress().getPort()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(CLI_TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("sluice top finished").isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
