package dev.sluice.it.faults;

import dev.sluice.it.support.SandboxCluster;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes on the primary, straight to it (not through Sluice), a few times a second: a replica
 * that does not apply them (SQL thread stopped, MASTER_DELAY) falls behind for real, by as long
 * as the ticker has been running since its first write the replica lacks.
 */
final class PrimaryTicker implements AutoCloseable {
    static final String TABLE = "test.faults_ticks";
    private static final long TICK_MILLIS = 100;

    private final SandboxCluster cluster;
    private final Thread thread;
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;

    private PrimaryTicker(SandboxCluster cluster) {
        this.cluster = cluster;
        this.thread = new Thread(this::run, "primary-ticker");
        this.thread.setDaemon(true);
    }

    static void createTable(SandboxCluster cluster) {
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS " + TABLE
                + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3))");
    }

    static void dropTable(SandboxCluster cluster) {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
    }

    /** Starts ticking and returns once the first write is committed. */
    static PrimaryTicker start(SandboxCluster cluster) {
        PrimaryTicker t = new PrimaryTicker(cluster);
        t.thread.start();
        while (t.ticks.get() == 0 && t.failure.get() == null && t.thread.isAlive()) {
            sleep(10);
        }
        t.assertHealthy();
        return t;
    }

    private void run() {
        try (Connection c = cluster.connect(cluster.primary()); Statement s = c.createStatement()) {
            while (!stop) {
                s.executeUpdate("INSERT INTO " + TABLE + " () VALUES ()");
                ticks.incrementAndGet();
                Thread.sleep(TICK_MILLIS);
            }
        } catch (SQLException | RuntimeException e) {
            failure.set(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes committed so far. */
    long ticks() {
        return ticks.get();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    void assertHealthy() {
        if (failure.get() != null) {
            throw new IllegalStateException("writes on the primary failed", failure.get());
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(10_000);
        assertHealthy();
    }
}
