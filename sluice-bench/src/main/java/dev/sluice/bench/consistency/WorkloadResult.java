package dev.sluice.bench.consistency;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The figures of one run (one mode against one level's endpoint), over its measured part.
 *
 * @param checks            checked reads
 * @param violations        checked reads that returned an older value than they were owed
 * @param replicaReads      checked reads answered by a replica
 * @param writes            writes the checker made (they reach the primary whatever the level)
 * @param controlChecks     unchecked control reads (token mode: the same read without the token)
 * @param controlStale      control reads that were stale
 * @param errors            failed statements or connections, warm-up included
 * @param latency           latency of the checked reads
 * @param primaryQueriesPerSecond statements the primary ran per second beyond the checker's writes:
 *                          Sluice's monitor, reads sent to the primary, global position questions
 * @param hungSessions      sessions still blocked when the run was over (a proxy that stopped answering)
 * @param loadAverage       the machine's one-minute load average at the end of the run
 * @param waits             Sluice's consistency waits on this level's endpoint during the measured part
 */
record WorkloadResult(CheckMode mode, Level level, Duration measured, long checks, long violations,
        long replicaReads, long writes, long controlChecks, long controlStale, long errors, LatencySummary latency,
        double primaryQueriesPerSecond, int hungSessions, OptionalDouble loadAverage, Optional<ConsistencyWaits> waits,
        List<Violation> examples, List<String> errorMessages) {

    boolean promised() {
        return mode.promisedAt(level);
    }

    /** A promise was broken, or the run could not vouch for it. */
    boolean failed() {
        return promised() && (violations > 0 || errors > 0 || hungSessions > 0 || checks == 0);
    }

    double replicaShare() {
        return checks == 0 ? 0 : (double) replicaReads / checks;
    }

    double checksPerSecond() {
        return checks / seconds();
    }

    /** Checked reads the primary answered, per second (part of {@link #primaryQueriesPerSecond()}). */
    double primaryReadsPerSecond() {
        return (checks - replicaReads) / seconds();
    }

    private double seconds() {
        return measured.toNanos() / 1e9;
    }
}
