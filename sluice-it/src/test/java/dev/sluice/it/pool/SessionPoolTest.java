package dev.sluice.it.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §7, session pool: 20,000 short connections (connect, one query, quit) from more client
 * threads than the pool has connections. Backend connections outlive their clients: the nodes
 * see few logins and never more connections than the pool's bound. The same 20,000 go straight
 * to the primary in the same run, for the connect rate both ways (printed, not asserted: the
 * benchmark is sluice-bench/scripts/connect-rate.sh).
 */
class SessionPoolTest {
    private static final int CONNECTIONS = 20_000;
    /** Client threads: more than the pool has connections per node, so that clients wait for one. */
    private static final int THREADS = 8;
    private static final int BOUND = 4;
    /** A guard against a hang, not a speed limit: the machine may be busy with other work. */
    private static final Duration TIMEOUT = Duration.ofMinutes(4);
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, """
                connection-pool: session
                pool-max-connections: %d
                pool-wait-timeout: 60s
                """.formatted(BOUND));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    /** Connect, one query, quit — {@code CONNECTIONS} times over {@code THREADS} threads; connections per second. */
    private static double shortConnections(String url, Queue<String> errors) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        long start = System.nanoTime();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(threads.submit(() -> {
                    while (next.getAndIncrement() < CONNECTIONS) {
                        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                                ResultSet rs = s.executeQuery("SELECT 1")) {
                            if (!rs.next() || rs.getInt(1) != 1) {
                                errors.add("wrong answer to SELECT 1");
                            }
                        } catch (SQLException e) {
                            errors.add(e.getErrorCode() + " " + e.getMessage());
                        }
                    }
                }));
            }
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            for (Future<?> w : workers) {
                try {
                    w.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("only " + Math.min(next.get(), CONNECTIONS) + " of " + CONNECTIONS
                            + " connections began within " + TIMEOUT + " (" + errors.size() + " errors, first: "
                            + errors.peek() + ")", e);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        return CONNECTIONS / ((System.nanoTime() - start) / 1e9);
    }

    private static long logins(SandboxNode node) {
        return Long.parseLong(cluster.queryString(node, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                + "WHERE VARIABLE_NAME = 'CONNECTIONS'"));
    }

    @Test
    void twentyThousandShortConnectionsReuseAFewBackendConnectionsWithinThePoolBound() throws Exception {
        Queue<String> errors = new ConcurrentLinkedQueue<>();
        SandboxNode primary = cluster.primary();
        String direct = cluster.jdbcUrl(primary) + "?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD;
        double directRate = shortConnections(direct, errors);

        // None left, not merely BOUND: this Sluice has no backend connection yet, and a direct
        // connection still closing would be counted against its bound (seen once: primary=5).
        NodeConnections.awaitAtMost(cluster, 0, java.time.Duration.ofSeconds(30));
        long loginsBefore = logins(primary);
        double sluiceRate;
        try (NodeConnections nodes = NodeConnections.watch(cluster)) {
            sluiceRate = shortConnections(sluice.mariadbUrl("rw", ""), errors);
            nodes.close();
            long backendLogins = logins(primary) - loginsBefore;
            System.out.printf("session pool: %d short connections, direct %.0f/s, through Sluice %.0f/s "
                    + "(ratio %.2f); %d logins on the primary; highest app connections by node %s%n",
                    CONNECTIONS, directRate, sluiceRate, sluiceRate / directRate, backendLogins, nodes.highestByNode());
            assertThat(errors).as("errors (%d)", errors.size()).isEmpty();
            assertThat(nodes.samples()).as("samples taken while the clients ran").isGreaterThan(10);
            for (SandboxNode node : cluster.nodes()) {
                assertThat(nodes.highest(node.name())).as("connections on %s (all: %s)", node.name(),
                        nodes.highestByNode()).isLessThanOrEqualTo(BOUND);
            }
            assertThat(nodes.highest(primary.name())).isPositive();
            // Without the pool every client would be a login on the primary.
            assertThat(backendLogins).as("logins on the primary (the watcher and sampler included)")
                    .isLessThan(CONNECTIONS / 20);
        }
    }
}
