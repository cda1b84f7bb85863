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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §7, transaction pool under load: 2,000 client connections, all open at once, run short
 * transactions over at most 64 backend connections per node. Half the clients use BEGIN … COMMIT,
 * half JDBC's autocommit=0 and commit(); every client also reads outside a transaction (a
 * replica). No client sees an error, every transaction's write is there exactly once, and no node
 * ever has more than 64 connections of the application account.
 */
class TransactionPoolLoadTest {
    private static final int CLIENTS = 2_000;
    private static final int BOUND = 64;
    private static final int THREADS = 64;
    private static final int ROUNDS = 3;
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final String TABLE = "test.txpool_t";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + TABLE + " SELECT seq, 0 FROM seq_0_to_" + (CLIENTS - 1));
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.readWrite(cluster, """
                connection-pool: transaction
                pool-max-connections: %d
                pool-wait-timeout: 60s
                """.formatted(BOUND));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    private static void execute(Statement s, String sql) throws SQLException {
        s.execute(sql);
    }

    private static long read(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new SQLException("no row from " + sql);
            }
            return rs.getLong(1);
        }
    }

    /** One short transaction of client {@code id}, the way its half of the clients writes them. */
    private static void transaction(Connection c, int id) throws SQLException {
        try (Statement s = c.createStatement()) {
            String where = " WHERE id = " + id;
            read(s, "SELECT v FROM " + TABLE + where);
            if (id % 2 == 0) {
                execute(s, "BEGIN");
                long before = read(s, "SELECT v FROM " + TABLE + where + " FOR UPDATE");
                s.executeUpdate("UPDATE " + TABLE + " SET v = " + (before + 1) + where);
                execute(s, "COMMIT");
            } else {
                long before = read(s, "SELECT v FROM " + TABLE + where + " FOR UPDATE");
                s.executeUpdate("UPDATE " + TABLE + " SET v = " + (before + 1) + where);
                c.commit();
            }
        }
    }

    @Test
    void twoThousandClientsShareAtMost64BackendConnectionsPerNodeWithoutAnError() throws Exception {
        Queue<String> errors = new ConcurrentLinkedQueue<>();
        List<Connection> clients = new ArrayList<>(CLIENTS);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        NodeConnections.awaitAtMost(cluster, BOUND, java.time.Duration.ofSeconds(30));
        try (NodeConnections nodes = NodeConnections.watch(cluster)) {
            List<Future<Connection>> opening = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                int id = i;
                opening.add(threads.submit(() -> {
                    Connection c = DriverManager.getConnection(
                            sluice.mariadbUrl("rw", "connectTimeout=60000&socketTimeout=120000"));
                    if (id % 2 == 1) {
                        c.setAutoCommit(false);
                    }
                    return c;
                }));
            }
            for (Future<Connection> f : opening) {
                clients.add(f.get(remaining(deadline), TimeUnit.NANOSECONDS));
            }
            for (int round = 0; round < ROUNDS; round++) {
                List<Future<?>> work = new ArrayList<>(CLIENTS);
                for (int i = 0; i < CLIENTS; i++) {
                    int id = i;
                    Connection c = clients.get(i);
                    work.add(threads.submit(() -> {
                        try {
                            transaction(c, id);
                        } catch (SQLException e) {
                            errors.add("client " + id + ": " + e.getErrorCode() + " " + e.getMessage());
                        }
                    }));
                }
                for (Future<?> f : work) {
                    f.get(remaining(deadline), TimeUnit.NANOSECONDS);
                }
            }
            for (Connection c : clients) {
                assertThat(c.isValid(5)).as("every client connection is still open").isTrue();
            }
            nodes.close();
            System.out.printf("transaction pool: %d clients, %d transactions, highest app connections by node %s%n",
                    CLIENTS, CLIENTS * ROUNDS, nodes.highestByNode());
            assertThat(errors).as("errors (%d)", errors.size()).isEmpty();
            assertThat(nodes.samples()).as("samples taken while the clients ran").isGreaterThan(10);
            for (SandboxNode node : cluster.nodes()) {
                assertThat(nodes.highest(node.name())).as("connections on %s (all: %s)", node.name(),
                        nodes.highestByNode()).isBetween(1, BOUND);
            }
        } finally {
            for (Connection c : clients) {
                c.close();
            }
            threads.shutdownNow();
        }
        String totals = cluster.queryString(cluster.primary(),
                "SELECT CONCAT(COUNT(*), ' ', MIN(v), ' ', MAX(v)) FROM " + TABLE);
        assertThat(totals).as("rows, fewest and most updates").isEqualTo(CLIENTS + " " + ROUNDS + " " + ROUNDS);
    }

    private static long remaining(long deadline) {
        return Math.max(1, deadline - System.nanoTime());
    }
}
