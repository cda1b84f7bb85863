package dev.sluice.server.history;

/**
 * The dashboard's charts, one per group of series (BEHAVIOUR §12), in the order they are drawn.
 * The key and unit are part of {@code GET /v1/history}'s answer.
 */
public enum HistoryChart {
    /** Per node: statements routed there, per second, over every endpoint. */
    STATEMENTS("statements", "per second"),
    /** Per endpoint: the 99th percentile of statement latency within the step. */
    LATENCY_P99("latency-p99", "ms"),
    /** Per replica: replication lag as the monitor measured it. */
    REPLICATION_LAG("replication-lag", "s"),
    /** Per endpoint: client connections open. */
    SESSIONS("sessions", "connections"),
    /** Per node and state (in use, idle, waiting): the pools of every endpoint, summed. */
    POOL("pool", "connections"),
    /** Per outcome: reads that waited for a fresh enough replica, per second. */
    CONSISTENCY_WAITS("consistency-waits", "per second");

    private final String key;
    private final String unit;

    HistoryChart(String key, String unit) {
        this.key = key;
        this.unit = unit;
    }

    public String key() {
        return key;
    }

    public String unit() {
        return unit;
    }
}
