package dev.sluice.it.splitting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.PrimaryGeneralLog;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §6, transaction splitting: in a READ COMMITTED session the reads of a transaction before
 * its first write run on replicas, the transaction opens on the primary with the first write and
 * everything after it runs there. Where each statement ran is read from {@code @@server_id}; that
 * a read-only transaction never reached the primary is read from the primary's general log.
 */
class TransactionSplittingTest {
    private static final Duration CATCH_UP = Duration.ofSeconds(30);
    private static final String TABLE = "test.split_t";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static long primaryId;
    private static Set<Long> replicaIds;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, v INT NOT NULL)");
        primaryId = cluster.serverIdOf(cluster.primary());
        replicaIds = cluster.replicas().stream().map(cluster::serverIdOf).collect(Collectors.toSet());
        sluice = SluiceHarness.readWrite(cluster, "transaction-splitting: true");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @BeforeEach
    void freshRow() {
        cluster.exec(cluster.primary(), "REPLACE INTO " + TABLE + " VALUES (1, 10)");
        cluster.waitForReplicasCaughtUp(CATCH_UP);
    }

    private static Connection session(String isolation) throws SQLException {
        Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
        execute(c, "SET SESSION TRANSACTION ISOLATION LEVEL " + isolation);
        return c;
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static int update(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    private static long number(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getLong(1);
        }
    }

    /** The server that ran the read. */
    private static long ranOn(Connection c) throws SQLException {
        return number(c, "SELECT @@server_id + 0");
    }

    private static long valueOnPrimary() {
        return Long.parseLong(cluster.queryString(cluster.primary(), "SELECT v FROM " + TABLE + " WHERE id = 1"));
    }

    @Test
    void readsBeforeTheFirstWriteRunOnReplicasAndTheWriteAndEverythingAfterOnThePrimary() throws Exception {
        try (Connection c = session("READ COMMITTED")) {
            execute(c, "BEGIN");
            assertThat(ranOn(c)).as("first read").isIn(replicaIds);
            assertThat(ranOn(c)).as("second read").isIn(replicaIds);
            assertThat(update(c, "UPDATE " + TABLE + " SET v = v + 1 WHERE id = 1")).isEqualTo(1);
            assertThat(ranOn(c)).as("read after the write").isEqualTo(primaryId);
            assertThat(number(c, "SELECT v FROM " + TABLE + " WHERE id = 1")).as("the transaction sees its write")
                    .isEqualTo(11);
            assertThat(valueOnPrimary()).as("not committed yet").isEqualTo(10);
            execute(c, "COMMIT");
            assertThat(valueOnPrimary()).isEqualTo(11);
            // The next transaction is split again.
            execute(c, "START TRANSACTION");
            assertThat(ranOn(c)).isIn(replicaIds);
            execute(c, "COMMIT");
        }
    }

    @Test
    void autocommitOffTransactionsAreSplitTheSameWay() throws Exception {
        try (Connection c = session("READ COMMITTED")) {
            execute(c, "SET autocommit = 0");
            assertThat(ranOn(c)).as("first read").isIn(replicaIds);
            assertThat(ranOn(c)).as("second read").isIn(replicaIds);
            assertThat(update(c, "UPDATE " + TABLE + " SET v = v + 1 WHERE id = 1")).isEqualTo(1);
            assertThat(ranOn(c)).as("read after the write").isEqualTo(primaryId);
            assertThat(valueOnPrimary()).as("not committed yet").isEqualTo(10);
            execute(c, "COMMIT");
            assertThat(valueOnPrimary()).isEqualTo(11);
            assertThat(ranOn(c)).as("first read of the next transaction").isIn(replicaIds);
            assertThat(update(c, "UPDATE " + TABLE + " SET v = v + 1 WHERE id = 1")).isEqualTo(1);
            assertThat(ranOn(c)).isEqualTo(primaryId);
            execute(c, "ROLLBACK");
            assertThat(valueOnPrimary()).isEqualTo(11);
        }
    }

    @Test
    void aTransactionWithoutAWriteNeverReachesThePrimary() throws Exception {
        try (Connection c = session("READ COMMITTED")) {
            long backend = number(c, "/*FORCE_MASTER*/ SELECT @@pseudo_thread_id");
            List<PrimaryGeneralLog.Entry> during;
            List<PrimaryGeneralLog.Entry> after;
            try (PrimaryGeneralLog log = PrimaryGeneralLog.start(cluster)) {
                execute(c, "BEGIN");
                assertThat(ranOn(c)).isIn(replicaIds);
                assertThat(number(c, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo(10);
                execute(c, "COMMIT");
                during = log.entries();
                // The log does see this session's statements on the primary: the check above can fail.
                number(c, "/*FORCE_MASTER*/ SELECT LENGTH('seen by the log')");
                after = log.entries();
            }
            assertThat(during).filteredOn(e -> e.threadId() == backend).as("the session's primary connection")
                    .isEmpty();
            assertThat(during).extracting(PrimaryGeneralLog.Entry::argument)
                    .noneMatch(a -> a.contains(TABLE) || a.equalsIgnoreCase("BEGIN") || a.equalsIgnoreCase("COMMIT"));
            assertThat(after).filteredOn(e -> e.threadId() == backend).extracting(PrimaryGeneralLog.Entry::argument)
                    .anyMatch(a -> a.contains("seen by the log"));
        }
    }

    @Test
    void rollbackAfterTheWriteUndoesIt() throws Exception {
        try (Connection c = session("READ COMMITTED")) {
            execute(c, "BEGIN");
            assertThat(number(c, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo(10);
            assertThat(update(c, "UPDATE " + TABLE + " SET v = 99 WHERE id = 1")).isEqualTo(1);
            assertThat(number(c, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo(99);
            execute(c, "ROLLBACK");
            assertThat(number(c, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo(10);
        }
        assertThat(valueOnPrimary()).isEqualTo(10);
        cluster.waitForReplicasCaughtUp(CATCH_UP);
        for (SandboxNode replica : cluster.replicas()) {
            assertThat(cluster.queryString(replica, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo("10");
        }
    }

    @Test
    void repeatableReadAndSerializableTransactionsAreNotSplit() throws Exception {
        for (String isolation : List.of("REPEATABLE READ", "SERIALIZABLE")) {
            try (Connection c = session(isolation)) {
                execute(c, "BEGIN");
                assertThat(ranOn(c)).as("first read at %s", isolation).isEqualTo(primaryId);
                execute(c, "COMMIT");
                assertThat(ranOn(c)).as("a read outside a transaction").isIn(replicaIds);
            }
        }
        try (Connection c = session("READ COMMITTED")) {
            // SET TRANSACTION without SESSION: only the next transaction is REPEATABLE READ.
            execute(c, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            execute(c, "BEGIN");
            assertThat(ranOn(c)).as("the REPEATABLE READ transaction").isEqualTo(primaryId);
            execute(c, "COMMIT");
            execute(c, "BEGIN");
            assertThat(ranOn(c)).as("the next, READ COMMITTED one").isIn(replicaIds);
            execute(c, "COMMIT");
        }
    }

    @Test
    void aConsistentSnapshotTransactionIsNotSplit() throws Exception {
        try (Connection c = session("READ COMMITTED")) {
            execute(c, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
            assertThat(ranOn(c)).isEqualTo(primaryId);
            assertThat(number(c, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo(10);
            execute(c, "COMMIT");
            execute(c, "START TRANSACTION READ ONLY");
            assertThat(ranOn(c)).as("a plain read-only transaction is split").isIn(replicaIds);
            execute(c, "COMMIT");
        }
    }
}
