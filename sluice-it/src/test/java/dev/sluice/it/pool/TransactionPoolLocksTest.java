package dev.sluice.it.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §7, transaction pool: a client is locked to its backend connection once it does something
 * a shared connection cannot carry — one test per cause. Which connection a client is on is the
 * primary's thread id ({@code @@pseudo_thread_id}; CONNECTION_ID() answers Sluice's own id), asked
 * with {@code /*FORCE_MASTER*}{@code /} (a plain read answers with a replica's thread id).
 *
 * <p>The check that can fail: after the client's statement, other clients open transactions, and
 * so take the connections the pool has free. A client that is not locked gave its connection back
 * at the end of its statement, and one of them gets it ({@link #withoutALockCauseTheConnectionServesOtherClients});
 * a locked client keeps it, and none of them does.
 */
class TransactionPoolLocksTest {
    /** More than there are I/O threads, so that some of them run on the same loop (and pool) as the client. */
    private static final int OTHERS = 6;
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.pool_lock_t",
                "CREATE TABLE test.pool_lock_t (id INT PRIMARY KEY)", "INSERT INTO test.pool_lock_t VALUES (1)",
                "DROP PROCEDURE IF EXISTS test.pool_proc",
                "CREATE PROCEDURE test.pool_proc() SELECT COUNT(*) FROM test.pool_lock_t",
                "CREATE OR REPLACE FUNCTION test.pool_sets_sort(i INT) RETURNS INT NO SQL "
                        + "BEGIN SET @@sort_buffer_size = i; RETURN i + 1; END");
        sluice = SluiceHarness.readWrite(cluster, """
                connection-pool: transaction
                pool-max-connections: 16
                """);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.pool_lock_t", "DROP PROCEDURE IF EXISTS test.pool_proc",
                "DROP FUNCTION IF EXISTS test.pool_sets_sort");
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @FunctionalInterface
    interface Sql {
        void run(Connection c) throws Exception;
    }

    static Connection client(String options) throws SQLException {
        return DriverManager.getConnection(sluice.mariadbUrl("rw", options));
    }

    static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static long number(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getLong(1);
        }
    }

    /** The primary's thread id of the backend connection the client is on. */
    static long backend(Connection c) throws SQLException {
        return number(c, "/*FORCE_MASTER*/ SELECT @@pseudo_thread_id");
    }

    /** Other clients, each in an open transaction on the primary; their backends' thread ids. */
    private record Others(List<Connection> connections, List<Long> backends) implements AutoCloseable {
        static Others inTransactions() throws SQLException {
            List<Connection> cs = new ArrayList<>();
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < OTHERS; i++) {
                Connection c = client("");
                cs.add(c);
                execute(c, "BEGIN");
                ids.add(number(c, "SELECT @@pseudo_thread_id"));
            }
            return new Others(cs, ids);
        }

        @Override
        public void close() throws SQLException {
            for (Connection c : connections) {
                execute(c, "ROLLBACK");
                c.close();
            }
        }
    }

    /** After {@code cause}, the client stays on its backend connection and {@code stateKept} holds. */
    private static void staysOnItsConnection(String options, Sql cause, Sql stateKept) throws Exception {
        try (Connection c = client(options)) {
            cause.run(c);
            long mine = backend(c);
            try (Others others = Others.inTransactions()) {
                assertThat(others.backends()).as("no other client gets the locked connection").doesNotContain(mine);
                assertThat(backend(c)).as("the client is still on its connection").isEqualTo(mine);
                stateKept.run(c);
                for (Connection other : others.connections()) {
                    assertThat(backend(other)).isNotEqualTo(mine);
                }
            }
            assertThat(backend(c)).as("locked until it disconnects").isEqualTo(mine);
        }
    }

    @Test
    void withoutALockCauseTheConnectionServesOtherClients() throws Exception {
        try (Connection c = client("")) {
            number(c, "SELECT COUNT(*) FROM test.pool_lock_t");
            long mine = backend(c);
            try (Others others = Others.inTransactions()) {
                assertThat(others.backends()).as("the connection went back to the pool and serves another client")
                        .contains(mine);
                assertThat(backend(c)).isNotEqualTo(mine);
            }
        }
    }

    @Test
    void aUserVariableLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> execute(c, "SET @mine = 42"), c -> {
            assertThat(number(c, "SELECT @mine")).isEqualTo(42);
        });
    }

    @Test
    void aTemporaryTableLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> {
            execute(c, "CREATE TEMPORARY TABLE test.pool_tmp (x INT)");
            execute(c, "INSERT INTO test.pool_tmp VALUES (1), (2)");
        }, c -> assertThat(number(c, "SELECT COUNT(*) FROM test.pool_tmp")).isEqualTo(2));
    }

    @Test
    void anSqlPrepareLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> execute(c, "PREPARE pool_stmt FROM 'SELECT @@pseudo_thread_id'"),
                c -> assertThat(number(c, "EXECUTE pool_stmt")).isEqualTo(backend(c)));
    }

    @Test
    void lockTablesLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> execute(c, "LOCK TABLES test.pool_lock_t WRITE"), c -> {
            // Only the holder of a WRITE lock may read the table while it is locked.
            assertThat(number(c, "SELECT COUNT(*) FROM test.pool_lock_t")).isEqualTo(1);
            execute(c, "UNLOCK TABLES");
        });
    }

    @Test
    void aGlobalReadLockLocksTheClientToItsConnection() throws Exception {
        // Given back, the connection holding the lock would reach another client, and UNLOCK TABLES another connection.
        staysOnItsConnection("", c -> execute(c, "FLUSH TABLES WITH READ LOCK"), c -> execute(c, "UNLOCK TABLES"));
    }

    @Test
    void tablesFlushedForExportLockTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> execute(c, "FLUSH TABLES test.pool_lock_t FOR EXPORT"),
                c -> execute(c, "UNLOCK TABLES"));
    }

    @Test
    void aBackupStageLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> execute(c, "BACKUP STAGE START"), c -> execute(c, "BACKUP STAGE END"));
    }

    @Test
    void getLockLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> assertThat(number(c, "SELECT GET_LOCK('sluice_pool_lock', 0)")).isEqualTo(1),
                c -> {
                    assertThat(number(c, "SELECT IS_USED_LOCK('sluice_pool_lock')")).isEqualTo(backend(c));
                    // RELEASE_LOCK answers 1 only on the connection holding the lock.
                    assertThat(number(c, "SELECT RELEASE_LOCK('sluice_pool_lock')")).isEqualTo(1);
                });
    }

    @Test
    void aStoredFunctionLocksTheClientToItsConnection() throws Exception {
        // The function sets a session variable on the connection it runs on, unseen by Sluice: the
        // client reads it back there, and no other client gets that connection.
        staysOnItsConnection("", c -> assertThat(number(c, "SELECT test.pool_sets_sort(400001)")).isEqualTo(400002),
                c -> assertThat(number(c, "/*FORCE_MASTER*/ SELECT @@sort_buffer_size")).isEqualTo(400001));
    }

    @Test
    void aMultiStatementLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("allowMultiQueries=true", c -> execute(c, "DO 1; DO 2"),
                c -> assertThat(number(c, "SELECT COUNT(*) FROM test.pool_lock_t")).isEqualTo(1));
    }

    @Test
    void aStoredProcedureCallLocksTheClientToItsConnection() throws Exception {
        staysOnItsConnection("", c -> execute(c, "CALL test.pool_proc()"),
                c -> assertThat(number(c, "SELECT COUNT(*) FROM test.pool_lock_t")).isEqualTo(1));
    }

    @Test
    void aPacketOver16MbLocksTheClientToItsConnection() throws Exception {
        String big = "x".repeat(17 * 1024 * 1024);
        staysOnItsConnection("maxAllowedPacket=67108864", c -> assertThat(number(c, "/*FORCE_MASTER*/ SELECT LENGTH('"
                + big + "')")).isEqualTo(big.length()), c -> { });
    }

    @Test
    void anotherClientNeverSeesAUserVariableOrTemporaryTable() throws Exception {
        try (Connection owner = client("")) {
            execute(owner, "SET @pool_secret = 7");
            execute(owner, "CREATE TEMPORARY TABLE test.pool_secret_tmp (x INT)");
            for (int i = 0; i < 3 * OTHERS; i++) {
                try (Connection other = client("")) {
                    execute(other, "BEGIN");
                    try (Statement s = other.createStatement(); ResultSet rs = s.executeQuery("SELECT @pool_secret")) {
                        rs.next();
                        assertThat((Object) rs.getObject(1)).isNull();
                    }
                    SQLException missing = catchThrowableOfType(SQLException.class,
                            () -> number(other, "SELECT COUNT(*) FROM test.pool_secret_tmp"));
                    assertThat((Throwable) missing).as("the other client has no such table").isNotNull();
                    assertThat(missing.getErrorCode()).isEqualTo(1146);
                    execute(other, "ROLLBACK");
                }
            }
            assertThat(number(owner, "SELECT @pool_secret")).isEqualTo(7);
            assertThat(number(owner, "SELECT COUNT(*) FROM test.pool_secret_tmp")).isZero();
        }
    }
}
