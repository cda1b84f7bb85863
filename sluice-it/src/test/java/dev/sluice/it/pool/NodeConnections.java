package dev.sluice.it.pool;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Watches, on every node, how many connections the application account has open (the node's own
 * processlist, the watcher's connection left out), sampling in the background, and keeps the
 * highest count seen. Sluice's backend connections log in as that account, so while no client
 * connects straight to the nodes, this is the number of backend connections Sluice holds.
 */
final class NodeConnections implements AutoCloseable {
    private static final long SAMPLE_EVERY_MILLIS = 10;

    private final Map<String, Connection> watchers = new LinkedHashMap<>();
    private final Map<String, Long> ownIds = new LinkedHashMap<>();
    private final Map<String, AtomicInteger> highest = new LinkedHashMap<>();
    private final AtomicInteger samples = new AtomicInteger();
    private final AtomicReference<SQLException> failure = new AtomicReference<>();
    private final Thread sampler;
    private volatile boolean running = true;

    private NodeConnections(SandboxCluster cluster) throws SQLException {
        try {
            for (SandboxNode node : cluster.nodes()) {
                Connection c = cluster.connect(node);
                watchers.put(node.name(), c);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                    rs.next();
                    ownIds.put(node.name(), rs.getLong(1));
                }
                highest.put(node.name(), new AtomicInteger());
            }
        } catch (SQLException | RuntimeException e) {
            // The watchers already open would outlive the test and count against the next one.
            for (Connection c : watchers.values()) {
                c.close();
            }
            throw e;
        }
        sampler = new Thread(this::sampleUntilClosed, "node-connections");
        sampler.setDaemon(true);
    }

    private final Map<String, Integer> latest = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Waits until no node has more than {@code max} application connections: those of earlier
     * tests (tens of thousands of short ones, or another Sluice's pool) take a moment to be gone
     * from the server's process list, and would be counted against this test's bound.
     */
    static void awaitAtMost(SandboxCluster cluster, int max, java.time.Duration timeout) throws Exception {
        NodeConnections w = new NodeConnections(cluster);
        try {
            org.awaitility.Awaitility.await("earlier application connections gone").atMost(timeout)
                    .pollInterval(java.time.Duration.ofMillis(100)).until(() -> {
                        w.sampleOnce();
                        return w.latest.values().stream().allMatch(n -> n <= max);
                    });
        } finally {
            w.close();
        }
    }

    static NodeConnections watch(SandboxCluster cluster) throws SQLException {
        NodeConnections w = new NodeConnections(cluster);
        w.sampleOnce();
        w.sampler.start();
        return w;
    }

    private void sampleUntilClosed() {
        while (running) {
            try {
                sampleOnce();
                Thread.sleep(SAMPLE_EVERY_MILLIS);
            } catch (SQLException e) {
                failure.compareAndSet(null, e);
                return;
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sampleOnce() throws SQLException {
        for (Map.Entry<String, Connection> w : watchers.entrySet()) {
            // SHOW PROCESSLIST, not a SELECT on information_schema: that one needs a temporary file.
            int count = 0;
            long own = ownIds.get(w.getKey());
            try (Statement s = w.getValue().createStatement(); ResultSet rs = s.executeQuery("SHOW PROCESSLIST")) {
                while (rs.next()) {
                    if (SandboxCluster.APP_USER.equals(rs.getString("User")) && rs.getLong("Id") != own) {
                        count++;
                    }
                }
            }
            highest.get(w.getKey()).accumulateAndGet(count, Math::max);
            latest.put(w.getKey(), count);
        }
        samples.incrementAndGet();
    }

    /** The highest count seen on {@code node} so far. */
    int highest(String node) {
        return highest.get(node).get();
    }

    /** The highest counts by node, e.g. for a message. */
    Map<String, Integer> highestByNode() {
        Map<String, Integer> out = new LinkedHashMap<>();
        highest.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    /** Rounds of samples taken (each covers every node). */
    int samples() {
        return samples.get();
    }

    /** Stops sampling; fails if a sample could not be taken (the watch would be blind). */
    @Override
    public void close() throws SQLException, InterruptedException {
        if (!running) {
            return;
        }
        running = false;
        sampler.join(5_000);
        for (Connection c : watchers.values()) {
            c.close();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
