package dev.sluice.bench.consistency;

import java.util.ArrayList;
import java.util.List;

/**
 * What one session thread saw during a run. Counts only while the run is measuring (the driver
 * switches {@link #recording} per iteration); errors are counted always, because an error during
 * the warm-up is still an error. Owned by one thread; read by the driver after it has joined.
 */
final class Tally {
    /** Evidence kept per session: enough for a bug report, not a log of every miss. */
    private static final int EXAMPLES_KEPT = 3;

    private boolean recording;
    private long checks;
    private long violations;
    private long replicaReads;
    private long writes;
    private long controlChecks;
    private long controlStale;
    private long errors;
    private final LatencySamples latency = new LatencySamples();
    private final List<Violation> examples = new ArrayList<>();
    private final List<String> errorMessages = new ArrayList<>();

    void recording(boolean on) {
        recording = on;
    }

    /** A statement that changed the primary (subtracted from the primary's query count). */
    void wrote() {
        if (recording) {
            writes++;
        }
    }

    /**
     * A checked read: it owed at least {@code expected} and returned {@code seen} from
     * {@code serverId} after {@code latencyNanos}.
     */
    void read(ReadResult result, long expected, boolean onReplica, long latencyNanos, int row,
            long sinceWriteNanos, String detail) {
        if (!recording) {
            return;
        }
        checks++;
        if (onReplica) {
            replicaReads++;
        }
        latency.add(latencyNanos);
        if (result.value() < expected) {
            violations++;
            if (examples.size() < EXAMPLES_KEPT) {
                examples.add(new Violation(row, expected, result.value(), result.serverId(),
                        sinceWriteNanos / 1_000, detail));
            }
        }
    }

    /** A read without any promise, done to show how often the same read is stale without one. */
    void controlRead(long seen, long expected) {
        if (recording) {
            controlChecks++;
            if (seen < expected) {
                controlStale++;
            }
        }
    }

    void error(Exception e) {
        errors++;
        if (errorMessages.size() < EXAMPLES_KEPT) {
            errorMessages.add(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    long checks() {
        return checks;
    }

    long violations() {
        return violations;
    }

    long replicaReads() {
        return replicaReads;
    }

    long writes() {
        return writes;
    }

    long controlChecks() {
        return controlChecks;
    }

    long controlStale() {
        return controlStale;
    }

    long errors() {
        return errors;
    }

    LatencySamples latency() {
        return latency;
    }

    List<Violation> examples() {
        return examples;
    }

    List<String> errorMessages() {
        return errorMessages;
    }
}
