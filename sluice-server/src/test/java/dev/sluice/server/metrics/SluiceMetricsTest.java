package dev.sluice.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.server.admin.EndpointDescription;
import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.admin.ProxyDescription;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SluiceMetricsTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final SluiceMetrics metrics = new SluiceMetrics();

    @AfterEach
    void close() {
        metrics.close();
    }

    /** The value of the series {@code name} with exactly {@code labels}, whatever their order in the text. */
    static Optional<Double> sample(String exposition, String name, Map<String, String> labels) {
        for (String line : exposition.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches() || !m.group(1).equals(name)) {
                continue;
            }
            Map<String, String> found = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    found.put(l.group(1), l.group(2));
                }
            }
            if (found.equals(labels)) {
                return Optional.of(Double.parseDouble(m.group(4)));
            }
        }
        return Optional.empty();
    }

    @Test
    void statementDurationsAreAHistogramPerEndpointAndNodeRecordedWithoutAllocation() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long allocated = 0;
        for (int round = 0; round < 2; round++) {
            // The first round registers the series and lets the JIT settle; the second is measured.
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 50_000; i++) {
                metrics.statementAnswered("rw", (i & 1) == 0 ? "ro1" : null, TimeUnit.MICROSECONDS.toNanos(300));
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertThat(allocated).as("bytes allocated by 50,000 statements recorded: under one a statement (a key or a "
                + "copy per statement would be a megabyte; what is left is the JIT's and the timers' own upkeep)")
                .isLessThan(50_000);
        metrics.statementAnswered("rw", "ro1", TimeUnit.MILLISECONDS.toNanos(30));
        String text = metrics.scrape();
        assertThat(sample(text, "sluice_statement_duration_seconds_count", Map.of("endpoint", "rw", "node", "ro1")))
                .contains(50_001.0);
        assertThat(sample(text, "sluice_statement_duration_seconds_count", Map.of("endpoint", "rw", "node", "none")))
                .as("a node gone meanwhile").contains(50_000.0);
        assertThat(sample(text, "sluice_statement_duration_seconds_bucket",
                Map.of("endpoint", "rw", "node", "ro1", "le", "5.0E-4"))).contains(50_000.0);
        assertThat(sample(text, "sluice_statement_duration_seconds_bucket",
                Map.of("endpoint", "rw", "node", "ro1", "le", "0.025"))).contains(50_000.0);
        assertThat(sample(text, "sluice_statement_duration_seconds_bucket",
                Map.of("endpoint", "rw", "node", "ro1", "le", "0.05"))).contains(50_001.0);
    }

    @Test
    void eventsAreCountedWithTheirLabels() {
        metrics.statementRouted("rw", "ro1", "replica", "read");
        metrics.statementRouted("rw", "ro1", "replica", "read");
        metrics.statementRouted("rw", "primary", "primary", "write");
        metrics.statementRouted("ro", null, "rejected", "read-only-endpoint");
        metrics.backendConnect("ro2", true);
        metrics.backendConnect("ro2", false);
        metrics.backendConnect("ro2", false);
        metrics.consistencyWait("rw", "ok", TimeUnit.MILLISECONDS.toNanos(3));
        metrics.consistencyWait("rw", "timeout-primary", TimeUnit.MILLISECONDS.toNanos(10));
        metrics.errorReturned("ro", ErrorCodes.ER_OPTION_PREVENTS_STATEMENT);
        metrics.sessionOpened("rw");
        metrics.sessionOpened("rw");
        metrics.sessionClosed("rw");

        String text = metrics.scrape();
        assertThat(sample(text, "sluice_statements_routed_total",
                Map.of("endpoint", "rw", "node", "ro1", "target", "replica", "reason", "read"))).hasValue(2.0);
        assertThat(sample(text, "sluice_statements_routed_total",
                Map.of("endpoint", "rw", "node", "primary", "target", "primary", "reason", "write"))).hasValue(1.0);
        assertThat(sample(text, "sluice_statements_routed_total",
                Map.of("endpoint", "ro", "node", "none", "target", "rejected", "reason", "read-only-endpoint")))
                .hasValue(1.0);
        assertThat(sample(text, "sluice_backend_connects_total", Map.of("node", "ro2", "outcome", "ok")))
                .hasValue(1.0);
        assertThat(sample(text, "sluice_backend_connects_total", Map.of("node", "ro2", "outcome", "failed")))
                .hasValue(2.0);
        assertThat(sample(text, "sluice_consistency_wait_seconds_count", Map.of("endpoint", "rw", "outcome", "ok")))
                .hasValue(1.0);
        assertThat(sample(text, "sluice_consistency_wait_seconds_sum",
                Map.of("endpoint", "rw", "outcome", "timeout-primary"))).hasValue(0.01);
        assertThat(sample(text, "sluice_errors_returned_total", Map.of("endpoint", "ro", "code", "1290")))
                .hasValue(1.0);
        assertThat(sample(text, "sluice_sessions_opened_total", Map.of("endpoint", "rw"))).hasValue(2.0);
        assertThat(sample(text, "sluice_sessions_closed_total", Map.of("endpoint", "rw"))).hasValue(1.0);
        assertThat(text).contains("# HELP sluice_statements_routed_total Statements routed");
    }

    @Test
    void repeatedEventsReuseTheirMeters() {
        metrics.statementRouted("rw", "ro1", "replica", "read");
        metrics.consistencyWait("rw", "ok", 1);
        int meters = metrics.registry().getMeters().size();
        for (int i = 0; i < 1000; i++) {
            metrics.statementRouted("rw", new String("ro1"), "replica", "read");
            metrics.consistencyWait("rw", "ok", 1);
            metrics.errorReturned("rw", ErrorCodes.ER_ACCESS_DENIED_ERROR);
        }
        assertThat(metrics.registry().getMeters()).hasSize(meters + 1);
        assertThat(sample(metrics.scrape(), "sluice_statements_routed_total",
                Map.of("endpoint", "rw", "node", "ro1", "target", "replica", "reason", "read"))).hasValue(1001.0);
    }

    private static NodeDescription node(String name, String role, String state, Long lag, boolean draining,
            Map<String, NodeDescription.NodeLoad> endpoints) {
        return new NodeDescription(name, "127.0.0.1:3311", role, null, 1, state, !role.equals("primary"),
                role.equals("primary") ? "none" : "running", lag, "0-1-5", draining, endpoints);
    }

    @Test
    void gaugesFollowTheDescriptionReadOncePerScrape() {
        ProxyDescription full = new ProxyDescription("t", 1, List.of(
                new EndpointDescription("rw", "127.0.0.1:6033", "read-write", "least-active", "eventual", 5, 99)),
                List.of(node("primary", "primary", "up", null, false,
                                Map.of("rw", new NodeDescription.NodeLoad(0, false, 5, 1, 40))),
                        node("ro1", "replica", "up", 2L, true,
                                Map.of("rw", new NodeDescription.NodeLoad(100, true, 4, 2, 59))),
                        node("ro2", "replica", "down", null, false,
                                Map.of("rw", new NodeDescription.NodeLoad(200, false, 0, 0, 0)))));
        AtomicReference<ProxyDescription> current = new AtomicReference<>(full);
        AtomicInteger reads = new AtomicInteger();
        metrics.registerGauges(() -> {
            reads.incrementAndGet();
            return current.get();
        });

        String text = metrics.scrape();
        assertThat(reads).hasValue(1);
        assertThat(sample(text, "sluice_endpoint_sessions", Map.of("endpoint", "rw"))).hasValue(5.0);
        assertThat(sample(text, "sluice_node_sessions", Map.of("endpoint", "rw", "node", "ro1"))).hasValue(4.0);
        assertThat(sample(text, "sluice_node_requests", Map.of("endpoint", "rw", "node", "ro1"))).hasValue(2.0);
        assertThat(sample(text, "sluice_node_weight", Map.of("endpoint", "rw", "node", "ro2"))).hasValue(200.0);
        assertThat(sample(text, "sluice_node_readable", Map.of("endpoint", "rw", "node", "ro1"))).hasValue(1.0);
        assertThat(sample(text, "sluice_node_readable", Map.of("endpoint", "rw", "node", "ro2"))).hasValue(0.0);
        assertThat(sample(text, "sluice_node_replication_lag_seconds", Map.of("node", "ro1"))).hasValue(2.0);
        assertThat(sample(text, "sluice_node_replication_lag_seconds", Map.of("node", "ro2")))
                .hasValueSatisfying(v -> assertThat(v).isNaN());
        assertThat(sample(text, "sluice_node_up", Map.of("node", "primary"))).hasValue(1.0);
        assertThat(sample(text, "sluice_node_up", Map.of("node", "ro2"))).hasValue(0.0);
        assertThat(sample(text, "sluice_node_draining", Map.of("node", "ro1"))).hasValue(1.0);

        // ro2 removed, ro1 back in service: its series go, the others follow.
        current.set(new ProxyDescription("t", 2, full.endpoints(), List.of(full.nodes().get(0),
                node("ro1", "replica", "up", 0L, false, Map.of("rw", new NodeDescription.NodeLoad(100, true, 1, 0, 70))))));
        String after = metrics.scrape();
        assertThat(reads).hasValue(2);
        assertThat(sample(after, "sluice_node_up", Map.of("node", "ro2"))).isEmpty();
        assertThat(sample(after, "sluice_node_weight", Map.of("endpoint", "rw", "node", "ro2"))).isEmpty();
        assertThat(sample(after, "sluice_node_sessions", Map.of("endpoint", "rw", "node", "ro1"))).hasValue(1.0);
        assertThat(sample(after, "sluice_node_draining", Map.of("node", "ro1"))).hasValue(0.0);
    }

    @Test
    void jvmMetricsAreExposed() {
        String text = metrics.scrape();
        assertThat(text).contains("jvm_memory_used_bytes{", "jvm_threads_live_threads ", "jvm_classes_loaded_classes ",
                "system_cpu_count ", "process_uptime_seconds ");
    }

    @Test
    void theHistoryReadsLatenciesPerEndpointAndWaitsPerOutcome() {
        metrics.statementAnswered("rw", "primary", TimeUnit.MICROSECONDS.toNanos(200));
        metrics.statementAnswered("rw", "ro1", TimeUnit.MILLISECONDS.toNanos(3));
        metrics.statementAnswered("rw", null, TimeUnit.SECONDS.toNanos(20));
        metrics.statementAnswered("ro", "ro1", TimeUnit.MICROSECONDS.toNanos(50));
        metrics.consistencyWait("rw", "ok", 1_000);
        metrics.consistencyWait("ro", "ok", 1_000);
        metrics.consistencyWait("ro", "timeout-primary", 1_000);

        Map<String, LatencyCounts> latencies = metrics.statementLatencies();
        LatencyCounts rw = latencies.get("rw");
        assertThat(rw.count()).as("its nodes summed, the one above the last bucket too").isEqualTo(3);
        long[] atOrBelow = rw.atOrBelow();
        double[] bounds = LatencyCounts.boundsSeconds();
        for (int i = 0; i < bounds.length; i++) {
            long expected = (bounds[i] >= 0.0002 ? 1 : 0) + (bounds[i] >= 0.003 ? 1 : 0);
            assertThat(atOrBelow[i]).as("at or below %s s", bounds[i]).isEqualTo(expected);
        }
        assertThat(latencies.get("ro").atOrBelow()[0]).isEqualTo(1);
        assertThat(metrics.consistencyWaits()).containsOnly(Map.entry("ok", 2L), Map.entry("timeout-primary", 1L));
    }
}
