package dev.sluice.server.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last {@code span} of the dashboard's series, one value per {@code step} (BEHAVIOUR §12).
 *
 * <p>Memory is bounded by the configuration, not by time: one ring of {@code span / step} values
 * per series, and a series is a node, an endpoint or an outcome. A series that gets no value for
 * a whole span (its node or endpoint was removed) is dropped. A series that appears later is
 * padded with missing values before its first one, so that every series lines up with the times.
 *
 * <p>The sampler's thread writes and the admin server's thread reads, one sample or one report
 * at a time.
 */
public final class RecentHistory {
    /** The dashboard's window. */
    public static final Duration SPAN = Duration.ofMinutes(15);
    /** Between two samples: 180 points per series over {@link #SPAN}. */
    public static final Duration STEP = Duration.ofSeconds(5);
    /** Values kept to three decimals: finer than a chart shows, and a shorter answer. */
    private static final double ROUNDING = 1_000.0;

    private final Duration step;
    private final int capacity;
    /** Epoch seconds, which a double holds exactly. */
    private final SeriesRing times;
    private final Map<SeriesKey, SeriesRing> series = new LinkedHashMap<>();

    public RecentHistory() {
        this(SPAN, STEP);
    }

    RecentHistory(Duration span, Duration step) {
        if (step.isZero() || step.isNegative() || span.compareTo(step) < 0) {
            throw new IllegalArgumentException("a history needs a positive step within its span: " + step + ", "
                    + span);
        }
        this.step = step;
        this.capacity = (int) (span.toMillis() / step.toMillis());
        this.times = new SeriesRing(capacity);
    }

    /** Between two samples. */
    Duration step() {
        return step;
    }

    /** One sample: its time and the value of each series it measured; a series left out is missing here. */
    synchronized void record(long epochSeconds, Map<SeriesKey, Double> values) {
        int before = times.size();
        times.add(epochSeconds);
        for (Map.Entry<SeriesKey, Double> v : values.entrySet()) {
            series.computeIfAbsent(v.getKey(), k -> padded(before));
        }
        for (Iterator<Map.Entry<SeriesKey, SeriesRing>> it = series.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<SeriesKey, SeriesRing> s = it.next();
            Double v = values.get(s.getKey());
            s.getValue().add(v == null ? Double.NaN : v);
            if (s.getValue().isBlank()) {
                it.remove();
            }
        }
    }

    private SeriesRing padded(int missing) {
        SeriesRing ring = new SeriesRing(capacity);
        for (int i = 0; i < Math.min(missing, capacity - 1); i++) {
            ring.add(Double.NaN);
        }
        return ring;
    }

    /** Every chart, those with no series included, its series in the order they first appeared. */
    public synchronized HistoryReport report() {
        Map<HistoryChart, List<HistoryReport.SeriesHistory>> byChart = new EnumMap<>(HistoryChart.class);
        for (HistoryChart c : HistoryChart.values()) {
            byChart.put(c, new ArrayList<>());
        }
        for (Map.Entry<SeriesKey, SeriesRing> s : series.entrySet()) {
            List<Double> values = s.getValue().toList();
            values.replaceAll(v -> v == null ? null : Math.round(v * ROUNDING) / ROUNDING);
            byChart.get(s.getKey().chart()).add(new HistoryReport.SeriesHistory(s.getKey().name(), values));
        }
        List<HistoryReport.ChartHistory> charts = new ArrayList<>();
        byChart.forEach((c, lines) -> charts.add(new HistoryReport.ChartHistory(c.key(), c.unit(), lines)));
        List<Long> at = new ArrayList<>(times.size());
        for (int i = 0; i < times.size(); i++) {
            at.add((long) times.get(i));
        }
        return new HistoryReport(step.toSeconds(), step.toSeconds() * capacity, at, charts);
    }
}
