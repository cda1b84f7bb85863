package dev.sluice.server.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecentHistoryTest {
    private static final SeriesKey RO1 = new SeriesKey(HistoryChart.STATEMENTS, "ro1");
    private static final SeriesKey RO2 = new SeriesKey(HistoryChart.STATEMENTS, "ro2");
    private static final SeriesKey RW = new SeriesKey(HistoryChart.SESSIONS, "rw");

    private static HistoryReport.SeriesHistory series(HistoryReport r, String chart, String name) {
        return r.charts().stream().filter(c -> c.chart().equals(chart)).findFirst().orElseThrow().series().stream()
                .filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void theDefaultWindowIsFifteenMinutesOfFiveSecondSteps() {
        HistoryReport r = new RecentHistory().report();
        assertThat(r.stepSeconds()).isEqualTo(5);
        assertThat(r.spanSeconds()).isEqualTo(900);
        assertThat(r.times()).isEmpty();
        assertThat(r.charts()).extracting(HistoryReport.ChartHistory::chart).containsExactly("statements",
                "latency-p99", "replication-lag", "sessions", "pool", "consistency-waits");
        assertThat(r.charts()).allSatisfy(c -> assertThat(c.series()).isEmpty());
    }

    @Test
    void everySeriesLinesUpWithTheTimes() {
        RecentHistory h = new RecentHistory(Duration.ofSeconds(20), Duration.ofSeconds(5));
        h.record(100, Map.of(RO1, 1.0, RW, 3.0));
        h.record(105, Map.of(RO1, 2.0));
        h.record(110, Map.of(RO1, 3.0, RO2, 9.0, RW, 4.0));
        HistoryReport r = h.report();
        assertThat(r.times()).containsExactly(100L, 105L, 110L);
        assertThat(series(r, "statements", "ro1").values()).containsExactly(1.0, 2.0, 3.0);
        assertThat(series(r, "statements", "ro2").values()).as("padded before its first value")
                .isEqualTo(Arrays.asList(null, null, 9.0));
        assertThat(series(r, "sessions", "rw").values()).isEqualTo(Arrays.asList(3.0, null, 4.0));
        assertThat(r.charts().get(0).series()).extracting(HistoryReport.SeriesHistory::name)
                .as("in the order they appeared").containsExactly("ro1", "ro2");
    }

    @Test
    void theWindowSlidesAndASeriesGoneForAWholeWindowIsDropped() {
        RecentHistory h = new RecentHistory(Duration.ofSeconds(15), Duration.ofSeconds(5));
        h.record(100, Map.of(RO1, 1.0, RO2, 1.0));
        for (int t = 105; t <= 120; t += 5) {
            h.record(t, Map.of(RO1, (double) t));
        }
        HistoryReport r = h.report();
        assertThat(r.times()).containsExactly(110L, 115L, 120L);
        assertThat(series(r, "statements", "ro1").values()).containsExactly(110.0, 115.0, 120.0);
        assertThat(r.charts().get(0).series()).extracting(HistoryReport.SeriesHistory::name).containsExactly("ro1");

        h.record(125, Map.of(RO1, 1.0, RO2, 5.0));
        assertThat(series(h.report(), "statements", "ro2").values()).as("back, padded to the full window")
                .isEqualTo(Arrays.asList(null, null, 5.0));
    }

    @Test
    void valuesAreRoundedToThreeDecimals() {
        RecentHistory h = new RecentHistory(Duration.ofSeconds(10), Duration.ofSeconds(5));
        h.record(100, Map.of(RO1, 2.0 / 3));
        assertThat(series(h.report(), "statements", "ro1").values()).containsExactly(0.667);
    }
}
