package dev.sluice.bench.consistency;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Runs the sessions of one run, each on its own thread for the whole window, and adds up their
 * tallies. It also reads the primary's statement counters at the edges of the measured part: the
 * primary's load caused by a level (position questions, reads that fell back to it) is the
 * {@code Questions} delta minus the checker's writes ({@code Com_update}), counted by the server
 * itself so that statements in flight at the edges cannot skew it.
 */
final class WorkloadDriver {
    /** Pause between attempts to reconnect a session whose connection failed. */
    private static final long RECONNECT_PAUSE_MS = 100;
    /** Time for sessions to finish their last statement after the window, beyond the query timeout. */
    private static final Duration JOIN_GRACE = Duration.ofSeconds(5);

    private final PrimaryProbe primary;
    private final Duration queryTimeout;
    private final Optional<SluiceMetrics> sluice;

    WorkloadDriver(PrimaryProbe primary, Duration queryTimeout, Optional<SluiceMetrics> sluice) {
        this.primary = primary;
        this.queryTimeout = queryTimeout;
        this.sluice = sluice;
    }

    WorkloadResult run(Workload workload, Target target, Duration warmup, Duration measured)
            throws SQLException, InterruptedException {
        List<SessionLoop> sessions = workload.open(target);
        RunWindow window = RunWindow.startingNow(warmup, measured);
        List<Tally> tallies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < sessions.size(); i++) {
            SessionLoop session = sessions.get(i);
            Tally tally = new Tally();
            tallies.add(tally);
            Thread t = new Thread(() -> loop(session, tally, window),
                    "cc-" + workload.mode().cliName() + "-" + target.level().configName() + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        RunWindow.sleepUntil(window.measureFromNanos());
        PrimaryProbe.StatementCounts before = primary.statementCounts();
        String endpoint = target.level().configName();
        Optional<ConsistencyWaits> waitsBefore = sluice.flatMap(s -> s.waits(endpoint));
        RunWindow.sleepUntil(window.untilNanos());
        long primaryOthers = primary.statementCounts().othersSince(before);
        Optional<ConsistencyWaits> waits = waitsBefore.flatMap(b -> sluice.flatMap(s -> s.waits(endpoint))
                .map(after -> after.minus(b)));
        OptionalDouble load = MachineLoad.oneMinute();
        long joinBy = System.nanoTime() + queryTimeout.plus(JOIN_GRACE).toNanos();
        int hung = 0;
        for (Thread t : threads) {
            t.join(Math.max(1, (joinBy - System.nanoTime()) / 1_000_000));
            if (t.isAlive()) {
                hung++;
            }
        }
        sessions.forEach(SessionLoop::close);
        return summarize(workload.mode(), target.level(), measured, tallies, primaryOthers, hung, load, waits);
    }

    private static void loop(SessionLoop session, Tally tally, RunWindow window) {
        long now;
        while (!window.over(now = System.nanoTime())) {
            tally.recording(window.measuring(now));
            try {
                session.step(tally);
            } catch (SQLException | RuntimeException e) {
                tally.error(e);
                reconnect(session, tally, window);
            }
        }
    }

    private static void reconnect(SessionLoop session, Tally tally, RunWindow window) {
        while (!window.over(System.nanoTime())) {
            try {
                session.reconnect();
                return;
            } catch (SQLException e) {
                tally.error(e);
                try {
                    Thread.sleep(RECONNECT_PAUSE_MS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static WorkloadResult summarize(CheckMode mode, Level level, Duration measured, List<Tally> tallies,
            long primaryOthers, int hung, OptionalDouble load, Optional<ConsistencyWaits> waits) {
        long checks = 0;
        long violations = 0;
        long replicaReads = 0;
        long writes = 0;
        long controlChecks = 0;
        long controlStale = 0;
        long errors = 0;
        List<LatencySamples> latencies = new ArrayList<>();
        List<Violation> examples = new ArrayList<>();
        List<String> errorMessages = new ArrayList<>();
        for (Tally t : tallies) {
            checks += t.checks();
            violations += t.violations();
            replicaReads += t.replicaReads();
            writes += t.writes();
            controlChecks += t.controlChecks();
            controlStale += t.controlStale();
            errors += t.errors();
            latencies.add(t.latency());
            examples.addAll(t.examples());
            errorMessages.addAll(t.errorMessages());
        }
        double seconds = measured.toNanos() / 1e9;
        double otherQueriesPerSecond = primaryOthers / seconds;
        return new WorkloadResult(mode, level, measured, checks, violations, replicaReads, writes, controlChecks,
                controlStale, errors, LatencySamples.summarize(latencies), otherQueriesPerSecond, hung, load, waits,
                List.copyOf(examples), List.copyOf(errorMessages));
    }
}
