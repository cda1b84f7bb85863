package dev.sluice.server.history;

/** One line of a chart: a node, an endpoint, or an outcome, as the chart groups them. */
record SeriesKey(HistoryChart chart, String name) {
}
