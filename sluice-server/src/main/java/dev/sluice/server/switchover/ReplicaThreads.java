package dev.sluice.server.switchover;

import dev.sluice.server.backend.QueryResult;
import java.util.Optional;

/**
 * Whether a node just pointed at a new primary replicates from it, read from its
 * {@code SHOW SLAVE STATUS}: both threads running, still starting (the I/O thread preparing or
 * connecting), or failed with the server's own error. Pure.
 */
public final class ReplicaThreads {
    /** What MariaDB shows while the I/O thread starts: before and while it connects to the source. */
    private static final java.util.Set<String> STARTING_IO = java.util.Set.of("Preparing", "Connecting");

    private ReplicaThreads() {
    }

    public enum State {
        RUNNING, STARTING, FAILED
    }

    public record Reading(State state, String detail) {
    }

    public static Reading of(QueryResult status) {
        if (status.isError()) {
            return new Reading(State.FAILED, "SHOW SLAVE STATUS failed: " + status.error().get().message());
        }
        if (status.rows().isEmpty()) {
            return new Reading(State.FAILED, "it has no replication configured");
        }
        String io = status.first("Slave_IO_Running").orElse("");
        String sql = status.first("Slave_SQL_Running").orElse("");
        Optional<String> ioError = nonEmpty(status.first("Last_IO_Error"));
        Optional<String> sqlError = nonEmpty(status.first("Last_SQL_Error"));
        if (io.equals("Yes") && sql.equals("Yes")) {
            return new Reading(State.RUNNING, "running");
        }
        if (!sql.equals("Yes")) {
            return new Reading(State.FAILED, "its SQL thread is stopped" + sqlError.map(e -> ": " + e).orElse(""));
        }
        if (STARTING_IO.contains(io) && ioError.isEmpty()) {
            return new Reading(State.STARTING, "its I/O thread is " + io.toLowerCase(java.util.Locale.ROOT));
        }
        return new Reading(State.FAILED, "its I/O thread is " + (io.isEmpty() ? "not running" : io)
                + ioError.map(e -> ": " + e).orElse(""));
    }

    private static Optional<String> nonEmpty(Optional<String> s) {
        return s.filter(v -> !v.isBlank());
    }
}
