package dev.sluice.server.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.server.admin.EndpointDescription;
import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.admin.ProxyDescription;
import dev.sluice.server.metrics.LatencyCounts;
import dev.sluice.server.pool.NodePoolUse;
import dev.sluice.server.pool.PoolUse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HistoryStepTest {
    private static final long SECOND = 1_000_000_000L;

    /** rw and ro over a primary and ro1; {@code rwOnRo1} and {@code roOnRo1} statements routed to ro1 since start. */
    private static ProxyDescription proxy(long primary, long rwOnRo1, long roOnRo1, Long ro1Lag, int rwSessions) {
        Map<String, NodeDescription.NodeLoad> onPrimary = Map.of("rw", new NodeDescription.NodeLoad(1, false, 1, 0,
                primary));
        Map<String, NodeDescription.NodeLoad> onRo1 = new LinkedHashMap<>();
        onRo1.put("rw", new NodeDescription.NodeLoad(1, true, 1, 0, rwOnRo1));
        onRo1.put("ro", new NodeDescription.NodeLoad(1, true, 1, 0, roOnRo1));
        return new ProxyDescription("test", 1,
                List.of(new EndpointDescription("rw", "127.0.0.1:6033", "read-write", "least-active", "eventual",
                        rwSessions, primary + rwOnRo1),
                        new EndpointDescription("ro", "127.0.0.1:6034", "read-only", "least-active", "eventual", 0,
                                roOnRo1)),
                List.of(new NodeDescription("primary", "127.0.0.1:3306", "primary", null, 1, "up", false, "none", null,
                        null, false, onPrimary),
                        new NodeDescription("ro1", "127.0.0.1:3307", "replica", null, 1, "up", true, "running",
                                ro1Lag, null, false, onRo1)));
    }

    private static LatencyCounts fast(long n) {
        long[] c = new long[LatencyCounts.boundsSeconds().length];
        java.util.Arrays.fill(c, 1, c.length, n);
        return new LatencyCounts(c, n);
    }

    private static Readings readings(long at, ProxyDescription proxy, List<NodePoolUse> pools,
            Map<String, LatencyCounts> latencies, Map<String, Long> waits) {
        return new Readings(at, at * SECOND, proxy, pools, latencies, waits);
    }

    private static double value(Map<SeriesKey, Double> values, HistoryChart chart, String name) {
        SeriesKey k = new SeriesKey(chart, name);
        assertThat(values).as("%s has %s", chart, name).containsKey(k);
        return values.get(k);
    }

    @Test
    void theFirstSampleHasLevelsButNoRates() {
        Map<SeriesKey, Double> v = HistoryStep.values(Optional.empty(), readings(100, proxy(10, 20, 30, 2L, 4),
                List.of(), Map.of("rw", fast(10)), Map.of()));
        assertThat(value(v, HistoryChart.STATEMENTS, "primary")).isNaN();
        assertThat(value(v, HistoryChart.LATENCY_P99, "rw")).isNaN();
        assertThat(value(v, HistoryChart.CONSISTENCY_WAITS, "ok")).isNaN();
        assertThat(value(v, HistoryChart.REPLICATION_LAG, "ro1")).isEqualTo(2.0);
        assertThat(value(v, HistoryChart.SESSIONS, "rw")).isEqualTo(4.0);
        assertThat(value(v, HistoryChart.SESSIONS, "ro")).isEqualTo(0.0);
    }

    @Test
    void ratesComeFromTheCountersBetweenTwoSamples() {
        Readings before = readings(100, proxy(10, 20, 30, 0L, 1), List.of(), Map.of("rw", fast(10)),
                Map.of("ok", 4L));
        Readings now = readings(105, proxy(60, 70, 80, 0L, 1), List.of(), Map.of("rw", fast(60)),
                Map.of("ok", 14L, "timeout-primary", 5L));
        Map<SeriesKey, Double> v = HistoryStep.values(Optional.of(before), now);
        assertThat(value(v, HistoryChart.STATEMENTS, "primary")).isEqualTo(10.0);
        assertThat(value(v, HistoryChart.STATEMENTS, "ro1")).as("both endpoints").isEqualTo(20.0);
        assertThat(value(v, HistoryChart.CONSISTENCY_WAITS, "ok")).isEqualTo(2.0);
        assertThat(value(v, HistoryChart.CONSISTENCY_WAITS, "timeout-primary")).isEqualTo(1.0);
        assertThat(value(v, HistoryChart.CONSISTENCY_WAITS, "timeout-error")).as("never waited: none per second")
                .isEqualTo(0.0);
        assertThat(value(v, HistoryChart.LATENCY_P99, "rw")).as("ms, in the 100–250 µs bucket")
                .isCloseTo(0.2485, within(1e-9));
        assertThat(value(v, HistoryChart.LATENCY_P99, "ro")).as("no statement in the step").isNaN();
    }

    @Test
    void aCounterThatWentBackwardsHasNoRate() {
        Readings before = readings(100, proxy(10, 500, 30, 0L, 1), List.of(), Map.of(), Map.of());
        Readings now = readings(105, proxy(60, 5, 30, 0L, 1), List.of(), Map.of(), Map.of());
        Map<SeriesKey, Double> v = HistoryStep.values(Optional.of(before), now);
        assertThat(value(v, HistoryChart.STATEMENTS, "ro1")).isNaN();
        assertThat(value(v, HistoryChart.STATEMENTS, "primary")).isEqualTo(10.0);
    }

    @Test
    void lagIsChartedForReplicasOnlyAndMissingWhenUnknown() {
        Map<SeriesKey, Double> v = HistoryStep.values(Optional.empty(), readings(100, proxy(0, 0, 0, null, 0),
                List.of(), Map.of(), Map.of()));
        assertThat(value(v, HistoryChart.REPLICATION_LAG, "ro1")).isNaN();
        assertThat(v).doesNotContainKey(new SeriesKey(HistoryChart.REPLICATION_LAG, "primary"));
    }

    @Test
    void poolUseIsSummedOverEndpointsPerNode() {
        List<NodePoolUse> pools = List.of(new NodePoolUse("rw", "ro1", new PoolUse(2, 3, 0)),
                new NodePoolUse("ro", "ro1", new PoolUse(1, 1, 4)),
                new NodePoolUse("rw", "primary", new PoolUse(5, 0, 0)));
        Map<SeriesKey, Double> v = HistoryStep.values(Optional.empty(), readings(100, proxy(0, 0, 0, 0L, 0), pools,
                Map.of(), Map.of()));
        assertThat(value(v, HistoryChart.POOL, "ro1 in use")).isEqualTo(3.0);
        assertThat(value(v, HistoryChart.POOL, "ro1 idle")).isEqualTo(4.0);
        assertThat(value(v, HistoryChart.POOL, "ro1 waiting")).isEqualTo(4.0);
        assertThat(value(v, HistoryChart.POOL, "primary in use")).isEqualTo(5.0);
    }

    @Test
    void aStepIntoARecentHistoryEndsAsItsReport() {
        RecentHistory h = new RecentHistory();
        Readings first = readings(100, proxy(0, 0, 0, 1L, 2), List.of(), Map.of(), Map.of());
        Readings second = readings(105, proxy(50, 0, 0, 3L, 2), List.of(), Map.of(), Map.of());
        h.record(100, HistoryStep.values(Optional.empty(), first));
        h.record(105, HistoryStep.values(Optional.of(first), second));
        HistoryReport r = h.report();
        assertThat(r.times()).containsExactly(100L, 105L);
        assertThat(r.charts().get(0).series()).filteredOn(s -> s.name().equals("primary")).singleElement()
                .satisfies(s -> assertThat(s.values()).containsExactly(null, 10.0));
        assertThat(r.charts().get(2).series()).singleElement()
                .satisfies(s -> assertThat(s.values()).containsExactly(1.0, 3.0));
    }
}
