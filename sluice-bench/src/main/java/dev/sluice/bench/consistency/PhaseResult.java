package dev.sluice.bench.consistency;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Every run of one phase: the same modes and levels under one state of replication (as it is, or
 * slowed on purpose).
 *
 * @param title      what was done to replication
 * @param slowed     whether replication was slowed on purpose (then stale eventual reads are expected)
 * @param measured   measured time per run
 * @param results    one per mode and level, modes in order, levels in order within a mode
 */
record PhaseResult(String title, boolean slowed, Duration measured, List<WorkloadResult> results) {

    Optional<WorkloadResult> find(CheckMode mode, Level level) {
        return results.stream().filter(r -> r.mode() == mode && r.level() == level).findFirst();
    }

    /**
     * Read latency a level adds over {@code eventual} for the same check in this phase, as
     * {@code {p50, p99}} in milliseconds; empty when eventual was not run.
     */
    Optional<double[]> addedLatency(WorkloadResult r) {
        return find(r.mode(), Level.EVENTUAL).map(e -> new double[] {
            r.latency().p50Millis() - e.latency().p50Millis(), r.latency().p99Millis() - e.latency().p99Millis()});
    }

    /** Primary queries per second a level causes beyond what {@code eventual} causes (the monitor's). */
    Optional<Double> addedPrimaryLoad(WorkloadResult r) {
        return find(r.mode(), Level.EVENTUAL).map(e -> r.primaryQueriesPerSecond() - e.primaryQueriesPerSecond());
    }
}
