package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * Makes every replica apply transactions late ({@code MASTER_DELAY}), for the run that proves the
 * checker can fail: with {@code eventual}, reads must then come back stale. Delayed, not stopped,
 * so that Sluice's monitor still sees replication running with a small lag and keeps the replicas
 * readable — a stopped SQL thread would take them out of the read set and hide the staleness.
 * Restored on {@link #close()}, and by a shutdown hook if the checker is interrupted.
 */
final class ReplicationSlowdown implements AutoCloseable {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private final Connections connections;
    private final List<String> replicas;
    private final Thread restoreOnExit;

    private ReplicationSlowdown(Connections connections, List<String> replicas) {
        this.connections = connections;
        this.replicas = replicas;
        this.restoreOnExit = new Thread(this::restoreQuietly, "cc-restore-replication");
    }

    static ReplicationSlowdown apply(Connections connections, List<String> replicas, Duration delay)
            throws SQLException {
        ReplicationSlowdown slowdown = new ReplicationSlowdown(connections, replicas);
        Runtime.getRuntime().addShutdownHook(slowdown.restoreOnExit);
        try {
            for (String url : replicas) {
                setDelay(connections, url, delay.toSeconds());
            }
        } catch (SQLException e) {
            slowdown.close();
            throw e;
        }
        return slowdown;
    }

    private static void setDelay(Connections connections, String url, long seconds) throws SQLException {
        // STOP SLAVE waits for the SQL thread to finish its current event group.
        try (Connection c = connections.open(url, STOP_TIMEOUT); Statement s = c.createStatement()) {
            s.execute("STOP SLAVE");
            s.execute("CHANGE MASTER TO MASTER_DELAY = " + seconds);
            s.execute("START SLAVE");
        }
    }

    private void restoreQuietly() {
        for (String url : replicas) {
            try {
                setDelay(connections, url, 0);
            } catch (SQLException e) {
                System.err.println("could not restore MASTER_DELAY = 0 on " + url + ": " + e.getMessage()
                        + "; run STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = 0; START SLAVE there");
            }
        }
    }

    @Override
    public void close() {
        restoreQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(restoreOnExit);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run: replication is being restored either way.
        }
    }
}
