package dev.sluice.bench.consistency;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The cells of a phase's results table, shared by the console table and the markdown report so
 * the two never disagree.
 */
final class ResultColumns {
    static final List<String> HEADER = List.of("check", "level", "promised", "reads checked", "reads/s",
            "violations", "on replicas", "read p50 ms", "read p99 ms", "added p50 / p99 ms",
            "primary q/s beyond writes", "errors", "load", "notes");

    private ResultColumns() {
    }

    static List<List<String>> rows(PhaseResult phase) {
        List<List<String>> rows = new ArrayList<>();
        for (WorkloadResult r : phase.results()) {
            List<String> cells = new ArrayList<>();
            cells.add(r.mode().description());
            cells.add(r.level().configName());
            cells.add(r.promised() ? "yes" : "no");
            cells.add(Long.toString(r.checks()));
            cells.add(fixed(r.checksPerSecond(), 0));
            cells.add(Long.toString(r.violations()) + (r.failed() ? " FAIL" : ""));
            cells.add(percent(r.replicaShare()));
            cells.add(fixed(r.latency().p50Millis(), 2));
            cells.add(fixed(r.latency().p99Millis(), 2));
            cells.add(r.level() == Level.EVENTUAL ? "(baseline)" : phase.addedLatency(r)
                    .map(d -> signed(d[0]) + " / " + signed(d[1])).orElse("–"));
            cells.add(primaryLoad(phase, r));
            cells.add(r.errors() + (r.hungSessions() > 0 ? " (" + r.hungSessions() + " hung)" : ""));
            cells.add(r.loadAverage().isPresent() ? fixed(r.loadAverage().getAsDouble(), 1) : "–");
            cells.add(notes(r));
            rows.add(cells);
        }
        return rows;
    }

    private static String primaryLoad(PhaseResult phase, WorkloadResult r) {
        String own = fixed(r.primaryQueriesPerSecond(), 1);
        if (r.level() == Level.EVENTUAL) {
            return own;
        }
        return phase.addedPrimaryLoad(r).map(d -> own + " (" + signed1(d) + ")").orElse(own);
    }

    private static String notes(WorkloadResult r) {
        String mode = switch (r.mode()) {
            case SESSION -> "";
            case GLOBAL -> fixed(r.writes() / (r.measured().toNanos() / 1e9), 0) + " writes/s on the primary";
            case TOKEN -> "without the token: " + r.controlStale() + " of " + r.controlChecks() + " stale";
        };
        String waits = r.waits().filter(w -> w.reached() + w.timedOut() > 0)
                .map(w -> "Sluice waited " + w.reached() + "× until fresh (" + fixed(w.reachedMeanMillis(), 1)
                        + " ms avg), " + w.timedOut() + "× in vain (" + fixed(w.timedOutMeanMillis(), 1) + " ms avg)")
                .orElse("");
        return mode.isEmpty() || waits.isEmpty() ? mode + waits : mode + "; " + waits;
    }

    static String percent(double share) {
        return fixed(share * 100, 1) + " %";
    }

    static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String signed(double v) {
        return String.format(Locale.ROOT, "%+.2f", v);
    }

    private static String signed1(double v) {
        return String.format(Locale.ROOT, "%+.1f", v);
    }
}
