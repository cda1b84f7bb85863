package dev.sluice.server.history;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * {@code GET /v1/history} (BEHAVIOUR §12): the sample times, and for every chart its series, each
 * value aligned with {@code times} (null where there was nothing to measure).
 *
 * @param stepSeconds seconds between two samples
 * @param spanSeconds how far back the history reaches once full
 * @param times each sample's time, epoch seconds, oldest first
 * @param charts every chart, in {@link HistoryChart} order, with no series when it has nothing to show
 */
public record HistoryReport(@JsonProperty("stepSeconds") long stepSeconds,
        @JsonProperty("spanSeconds") long spanSeconds, @JsonProperty("times") List<Long> times,
        @JsonProperty("charts") List<ChartHistory> charts) {

    public HistoryReport {
        times = List.copyOf(times);
        charts = List.copyOf(charts);
    }

    /** One chart: its key, its values' unit, its lines. */
    public record ChartHistory(@JsonProperty("chart") String chart, @JsonProperty("unit") String unit,
            @JsonProperty("series") List<SeriesHistory> series) {
        public ChartHistory {
            series = List.copyOf(series);
        }
    }

    /** One line; {@code values} may hold nulls, so it is not copied with {@code List.copyOf}. */
    public record SeriesHistory(@JsonProperty("name") String name, @JsonProperty("values") List<Double> values) {
    }
}
