package dev.sluice.it.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
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
 * BEHAVIOUR §7: under the transaction pool, LAST_INSERT_ID(), ROW_COUNT(), FOUND_ROWS() and SHOW
 * WARNINGS still answer about the client's own previous statement, although the backend
 * connection that ran it went back to the pool when it ended and other clients use it. Many
 * clients over a small pool, so that connections change hands between a statement and the
 * question about it.
 */
class TransactionPoolPreviousStatementTest {
    private static final int CLIENTS = 12;
    private static final int ROUNDS = 25;
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        List<String> setup = new ArrayList<>(List.of("DROP TABLE IF EXISTS test.pool_ids", "DROP TABLE IF EXISTS test.pool_rows",
                "CREATE TABLE test.pool_ids (id BIGINT AUTO_INCREMENT PRIMARY KEY, owner VARCHAR(40) NOT NULL)",
                "CREATE TABLE test.pool_rows (grp INT NOT NULL, k INT NOT NULL, n INT NOT NULL, PRIMARY KEY (grp, k))"));
        for (int g = 0; g < CLIENTS; g++) {
            // Client g owns g + 1 rows: every client's counts differ.
            for (int k = 0; k <= g; k++) {
                setup.add("INSERT INTO test.pool_rows VALUES (" + g + ", " + k + ", 0)");
            }
        }
        cluster.exec(cluster.primary(), setup.toArray(String[]::new));
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.readWrite(cluster, """
                connection-pool: transaction
                pool-max-connections: 4
                """);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.pool_ids", "DROP TABLE IF EXISTS test.pool_rows");
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    private static String text(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : "(no row)";
        }
    }

    /** The messages SHOW WARNINGS lists, joined. */
    private static String warnings(Statement s) throws SQLException {
        StringBuilder all = new StringBuilder();
        try (ResultSet rs = s.executeQuery("SHOW WARNINGS")) {
            while (rs.next()) {
                all.append(rs.getString("Message")).append("; ");
            }
        }
        return all.length() == 0 ? "(none)" : all.toString();
    }

    /** One client's rounds; every wrong answer is added to {@code wrong}. */
    private static void client(int g, Queue<String> wrong) throws SQLException {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
                Statement s = c.createStatement()) {
            for (int r = 0; r < ROUNDS; r++) {
                String owner = "client " + g + " round " + r;
                s.executeUpdate("INSERT INTO test.pool_ids (owner) VALUES ('" + owner + "')");
                String id = text(s, "SELECT LAST_INSERT_ID()");
                String ownerOfId = cluster.queryString(cluster.primary(),
                        "SELECT COALESCE(MAX(owner), '(no row)') FROM test.pool_ids WHERE id = " + id);
                if (!owner.equals(ownerOfId)) {
                    wrong.add(owner + ": LAST_INSERT_ID() = " + id + ", the row of " + ownerOfId);
                }
                String viaFunction = text(s, "SELECT COALESCE(MAX(owner), '(no row)') FROM test.pool_ids WHERE id = LAST_INSERT_ID()");
                if (!owner.equals(viaFunction)) {
                    wrong.add(owner + ": WHERE id = LAST_INSERT_ID() found " + viaFunction);
                }
                s.executeUpdate("UPDATE test.pool_rows SET n = n + 1 WHERE grp = " + g);
                String rowCount = text(s, "SELECT ROW_COUNT()");
                if (!String.valueOf(g + 1).equals(rowCount)) {
                    wrong.add(owner + ": ROW_COUNT() = " + rowCount + ", expected " + (g + 1));
                }
                text(s, "SELECT SQL_CALC_FOUND_ROWS k FROM test.pool_rows WHERE grp = " + g + " LIMIT 1");
                String found = text(s, "SELECT FOUND_ROWS()");
                if (!String.valueOf(g + 1).equals(found)) {
                    wrong.add(owner + ": FOUND_ROWS() = " + found + ", expected " + (g + 1));
                }
                text(s, "SELECT k FROM test.pool_rows WHERE grp = " + g);
                String returned = text(s, "SELECT FOUND_ROWS()");
                if (!String.valueOf(g + 1).equals(returned)) {
                    wrong.add(owner + ": FOUND_ROWS() after a plain SELECT = " + returned + ", expected " + (g + 1));
                }
                text(s, "SELECT k FROM test.pool_rows WHERE grp = " + g + " ORDER BY k LIMIT 1, 1");
                // The server counts the row the offset skipped; client 0's offset skips its only row.
                String afterOffset = text(s, "SELECT FOUND_ROWS()");
                if (!String.valueOf(Math.min(2, g + 1)).equals(afterOffset)) {
                    wrong.add(owner + ": FOUND_ROWS() after LIMIT 1, 1 = " + afterOffset + ", expected "
                            + Math.min(2, g + 1));
                }
                text(s, "SELECT k FROM test.pool_rows WHERE grp = " + g
                        + " UNION ALL SELECT k FROM test.pool_rows WHERE grp = " + g + " LIMIT 1");
                String afterUnion = text(s, "SELECT FOUND_ROWS()");
                if (!String.valueOf(2 * (g + 1)).equals(afterUnion)) {
                    wrong.add(owner + ": FOUND_ROWS() after a UNION with LIMIT 1 = " + afterUnion + ", expected "
                            + 2 * (g + 1));
                }
                String mark = "w" + g + "r" + r;
                text(s, "SELECT CAST('" + mark + "' AS SIGNED)"); // a warning: Truncated incorrect INTEGER value
                String warning = warnings(s);
                if (!warning.contains("'" + mark + "'")) {
                    wrong.add(owner + ": SHOW WARNINGS after its own warning: " + warning);
                }
            }
        }
    }

    @Test
    void lastInsertIdRowCountFoundRowsAndWarningsAnswerAboutTheClientsOwnPreviousStatement() throws Exception {
        Queue<String> wrong = new ConcurrentLinkedQueue<>();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int g = 0; g < CLIENTS; g++) {
                int group = g;
                clients.add(threads.submit(() -> {
                    client(group, wrong);
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(wrong).as("wrong answers").isEmpty();
        assertThat(cluster.queryString(cluster.primary(), "SELECT COUNT(*) FROM test.pool_ids"))
                .isEqualTo(String.valueOf(CLIENTS * ROUNDS));
    }
}
