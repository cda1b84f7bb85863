package dev.sluice.server.history;

import dev.sluice.server.admin.EndpointDescription;
import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.metrics.LatencyCounts;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.pool.NodePoolUse;
import dev.sluice.server.pool.PoolUse;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One step of the history from two readings: levels (sessions, lag, pools) as the newer reading
 * has them, rates and the latency percentile from the difference between the two. Without an
 * earlier reading, or where a counter went backwards (a node removed and added again starts from
 * zero), a rate is missing rather than wrong.
 */
final class HistoryStep {
    /** The percentile the latency chart shows. */
    static final double LATENCY_QUANTILE = 0.99;
    /**
     * The outcomes of a consistency wait, always charted: an endpoint that never waited shows 0 per
     * second, which says more than an empty chart.
     */
    static final List<String> WAIT_OUTCOMES = List.of(SluiceMetrics.WAIT_OK, SluiceMetrics.WAIT_TIMEOUT_PRIMARY,
            SluiceMetrics.WAIT_TIMEOUT_ERROR);
    private static final double NANOS_PER_SECOND = 1e9;
    private static final double MILLIS_PER_SECOND = 1e3;
    private static final double[] LATENCY_BOUNDS = LatencyCounts.boundsSeconds();

    private HistoryStep() {
    }

    static Map<SeriesKey, Double> values(Optional<Readings> previous, Readings now) {
        Map<SeriesKey, Double> out = new LinkedHashMap<>();
        double seconds = previous.map(p -> (now.nanos() - p.nanos()) / NANOS_PER_SECOND).orElse(Double.NaN);
        Optional<Readings> before = seconds > 0 ? previous : Optional.empty();
        statements(before, now, seconds, out);
        latencies(before, now, out);
        for (NodeDescription n : now.proxy().nodes()) {
            if (n.role().equals("replica")) {
                out.put(new SeriesKey(HistoryChart.REPLICATION_LAG, n.name()),
                        n.lagSeconds() == null ? Double.NaN : n.lagSeconds().doubleValue());
            }
        }
        for (EndpointDescription e : now.proxy().endpoints()) {
            out.put(new SeriesKey(HistoryChart.SESSIONS, e.name()), (double) e.activeSessions());
        }
        pools(now.pools(), out);
        waits(before, now, seconds, out);
        return out;
    }

    private static void statements(Optional<Readings> before, Readings now, double seconds,
            Map<SeriesKey, Double> out) {
        Map<String, Long> was = before.map(HistoryStep::statementsByNode).orElse(Map.of());
        statementsByNode(now).forEach((node, count) -> out.put(new SeriesKey(HistoryChart.STATEMENTS, node),
                rate(was.get(node), count, seconds)));
    }

    private static Map<String, Long> statementsByNode(Readings r) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (NodeDescription n : r.proxy().nodes()) {
            out.put(n.name(), n.endpoints().values().stream().mapToLong(NodeDescription.NodeLoad::statements).sum());
        }
        return out;
    }

    private static void latencies(Optional<Readings> before, Readings now, Map<SeriesKey, Double> out) {
        for (EndpointDescription e : now.proxy().endpoints()) {
            double p99 = before.map(b -> IntervalQuantile.of(LATENCY_QUANTILE, LATENCY_BOUNDS,
                    b.latencies().getOrDefault(e.name(), LatencyCounts.NONE),
                    now.latencies().getOrDefault(e.name(), LatencyCounts.NONE))).orElse(Double.NaN);
            out.put(new SeriesKey(HistoryChart.LATENCY_P99, e.name()), p99 * MILLIS_PER_SECOND);
        }
    }

    private static void pools(List<NodePoolUse> uses, Map<SeriesKey, Double> out) {
        Map<String, PoolUse> byNode = new LinkedHashMap<>();
        for (NodePoolUse u : uses) {
            byNode.merge(u.node(), u.use(), PoolUse::plus);
        }
        byNode.forEach((node, use) -> {
            out.put(new SeriesKey(HistoryChart.POOL, node + " in use"), (double) use.inUse());
            out.put(new SeriesKey(HistoryChart.POOL, node + " idle"), (double) use.idle());
            out.put(new SeriesKey(HistoryChart.POOL, node + " waiting"), (double) use.waiting());
        });
    }

    private static void waits(Optional<Readings> before, Readings now, double seconds, Map<SeriesKey, Double> out) {
        Set<String> outcomes = new LinkedHashSet<>(WAIT_OUTCOMES);
        outcomes.addAll(now.waits().keySet());
        for (String outcome : outcomes) {
            Long was = before.map(b -> b.waits().getOrDefault(outcome, 0L)).orElse(null);
            out.put(new SeriesKey(HistoryChart.CONSISTENCY_WAITS, outcome),
                    rate(was, now.waits().getOrDefault(outcome, 0L), seconds));
        }
    }

    private static double rate(Long before, long now, double seconds) {
        if (before == null || now < before || !(seconds > 0)) {
            return Double.NaN;
        }
        return (now - before) / seconds;
    }
}
