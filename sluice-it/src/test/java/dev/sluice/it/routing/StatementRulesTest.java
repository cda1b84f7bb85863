package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rule of BEHAVIOUR §3 end to end, through MariaDB Connector/J on a read-write endpoint whose
 * primary has read weight 0 and whose three replicas take turns ({@code weighted}): a plain read
 * lands on a replica, so a statement seen on the primary is there because of its rule, and a
 * statement sent to the wrong replica meets a different session there. Writes, DDL and locking
 * reads would also fail outright on a replica ({@code read_only}, and the test account has no
 * {@code READ_ONLY ADMIN}).
 */
class StatementRulesTest {
    static final String DB = "it_routing_rules";
    private static final int ROWS = 5;
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;
    private static long primaryId;

    private Connection connection;
    private Statement statement;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        primaryId = cluster.serverIdOf(cluster.primary());
        List<String> setup = new ArrayList<>(List.of(
                "DROP DATABASE IF EXISTS " + DB,
                "CREATE DATABASE " + DB,
                "CREATE TABLE " + DB + ".t (id INT AUTO_INCREMENT PRIMARY KEY, sid INT, v VARCHAR(20))",
                "CREATE FUNCTION " + DB + ".f_one() RETURNS INT DETERMINISTIC RETURN 1",
                "CREATE PROCEDURE " + DB + ".p_sid() SELECT @@server_id"));
        for (int i = 0; i < ROWS; i++) {
            setup.add("INSERT INTO " + DB + ".t (sid, v) VALUES (0, 'seed')");
        }
        cluster.exec(cluster.primary(), setup.toArray(String[]::new));
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.readWrite(cluster,
                "weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}\nbalancer: weighted");
        AdminView.awaitReadable(sluice, "rw", "ro1", "ro2", "ro3");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB);
        } finally {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @BeforeEach
    void connect() throws SQLException {
        connection = DriverManager.getConnection(sluice.mariadbUrl("rw", "allowMultiQueries=true&useResetConnection=true&allowLocalInfile=true"));
        statement = connection.createStatement();
        statement.execute("USE " + DB);
    }

    @AfterEach
    void disconnect() throws SQLException {
        connection.close();
    }

    private String where(String sql) throws SQLException {
        return names.where(statement, sql);
    }

    /** A plain read on this very connection goes to a replica: the rule under test is what moves a statement. */
    private void plainReadsGoToReplicas() throws SQLException {
        for (int i = 0; i < 3; i++) {
            assertThat(where("SELECT @@server_id")).as("plain autocommit read").startsWith("ro");
        }
    }

    private static long sidOnPrimary(String where) {
        return Long.parseLong(cluster.queryString(cluster.primary(), "SELECT sid FROM " + DB + ".t WHERE " + where));
    }

    @Test
    void insertUpdateDeleteAndReplaceRunOnThePrimary() throws SQLException {
        plainReadsGoToReplicas();
        // @@server_id is evaluated where the statement runs (row-based binlog copies the value as is).
        statement.executeUpdate("INSERT INTO t (sid, v) VALUES (@@server_id, 'ins')");
        assertThat(sidOnPrimary("v = 'ins'")).isEqualTo(primaryId);
        statement.executeUpdate("UPDATE t SET sid = @@server_id + 100, v = 'upd' WHERE v = 'ins'");
        assertThat(sidOnPrimary("v = 'upd'")).isEqualTo(primaryId + 100);
        statement.executeUpdate("REPLACE INTO t (id, sid, v) SELECT id, @@server_id + 200, 'rep' FROM t WHERE v = 'upd'");
        assertThat(sidOnPrimary("v = 'rep'")).isEqualTo(primaryId + 200);
        assertThat(statement.executeUpdate("DELETE FROM t WHERE v = 'rep' AND sid = @@server_id + 200"))
                .as("DELETE matched by the primary's server_id").isEqualTo(1);
        plainReadsGoToReplicas();
    }

    @Test
    void loadDataRunsOnThePrimary(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("rows.txt");
        Files.writeString(file, "load1\nload2\n");
        int loaded = statement.executeUpdate("LOAD DATA LOCAL INFILE '" + file + "' INTO TABLE t (v) SET sid = @@server_id");
        assertThat(loaded).isEqualTo(2);
        assertThat(cluster.queryString(cluster.primary(), "SELECT GROUP_CONCAT(DISTINCT sid) FROM " + DB
                + ".t WHERE v LIKE 'load%'")).isEqualTo(Long.toString(primaryId));
        statement.executeUpdate("DELETE FROM t WHERE v LIKE 'load%'");
        plainReadsGoToReplicas();
    }

    @Test
    void ddlRunsOnThePrimary() throws SQLException {
        statement.execute("CREATE TABLE ddl_probe AS SELECT @@server_id AS sid");
        statement.execute("ALTER TABLE ddl_probe ADD COLUMN v VARCHAR(20) DEFAULT 'ddl'");
        assertThat(cluster.queryString(cluster.primary(), "SELECT CONCAT(sid, '/', v) FROM " + DB + ".ddl_probe"))
                .isEqualTo(primaryId + "/ddl");
        statement.execute("TRUNCATE TABLE ddl_probe");
        statement.execute("DROP TABLE ddl_probe");
        assertThat(cluster.queryString(cluster.primary(), "SELECT COUNT(*) FROM information_schema.tables "
                + "WHERE table_schema = '" + DB + "' AND table_name = 'ddl_probe'")).isEqualTo("0");
        plainReadsGoToReplicas();
    }

    @Test
    void lockingReadsRunOnThePrimary() throws SQLException {
        plainReadsGoToReplicas();
        for (int i = 0; i < 3; i++) {
            assertThat(where("SELECT @@server_id FROM t WHERE id = 1 FOR UPDATE")).isEqualTo("primary");
            assertThat(where("SELECT @@server_id FROM t WHERE id = 1 LOCK IN SHARE MODE")).isEqualTo("primary");
        }
    }

    @Test
    void readsInsideAnExplicitTransactionRunOnThePrimary() throws SQLException {
        plainReadsGoToReplicas();
        for (String begin : List.of("BEGIN", "START TRANSACTION", "START TRANSACTION READ ONLY")) {
            statement.execute(begin);
            for (int i = 0; i < 4; i++) {
                assertThat(where("SELECT @@server_id")).as("read after " + begin).isEqualTo("primary");
            }
            statement.execute("COMMIT");
            plainReadsGoToReplicas();
        }
    }

    @Test
    void readsWithAutocommitOffRunOnThePrimaryEvenBetweenTransactions() throws SQLException {
        connection.setAutoCommit(false);
        for (int i = 0; i < 4; i++) {
            assertThat(where("SELECT @@server_id")).as("read with autocommit=0").isEqualTo("primary");
        }
        connection.commit();
        // With autocommit=0 the statement after COMMIT opens the next transaction: still the primary.
        assertThat(where("SELECT @@server_id")).as("read after COMMIT, autocommit=0").isEqualTo("primary");
        connection.rollback();
        connection.setAutoCommit(true);
        plainReadsGoToReplicas();

        statement.execute("SET autocommit = 0");
        assertThat(where("SELECT @@server_id")).as("read after SET autocommit=0").isEqualTo("primary");
        statement.execute("COMMIT");
        assertThat(where("SELECT @@server_id")).as("read after COMMIT, SET autocommit=0").isEqualTo("primary");
        statement.execute("SET autocommit = 1");
        plainReadsGoToReplicas();
    }

    @Test
    void userVariablesSetBySetAreReadOnReplicasThoseAssignedByAQueryOnThePrimary() throws SQLException {
        statement.execute("SET @answer = 42");
        for (int i = 0; i < 3; i++) {
            try (ResultSet rs = statement.executeQuery("SELECT @@server_id, @answer")) {
                rs.next();
                assertThat(names.name(rs.getLong(1))).as("every backend has the value").isNotEqualTo("primary");
                assertThat(rs.getInt(2)).as("@answer as set").isEqualTo(42);
            }
        }
        assertThat(where("SELECT @@server_id, @other := 7")).isEqualTo("primary");
        try (ResultSet rs = statement.executeQuery("SELECT @@server_id, @other")) {
            rs.next();
            assertThat(names.name(rs.getLong(1))).as("@other lives on the primary only").isEqualTo("primary");
            assertThat(rs.getInt(2)).as("@other as assigned by SELECT").isEqualTo(7);
        }
        plainReadsGoToReplicas();
    }

    @Test
    void statementsOnTheSessionsTemporaryTableRunOnThePrimary() throws SQLException {
        statement.execute("CREATE TEMPORARY TABLE tmp_probe (n INT)");
        statement.execute("INSERT INTO tmp_probe VALUES (1), (2)");
        for (int i = 0; i < 3; i++) {
            // On a replica the table does not exist: the read would fail.
            assertThat(where("SELECT @@server_id, SUM(n) FROM tmp_probe")).isEqualTo("primary");
        }
        assertThat(where("SELECT @@server_id FROM t LIMIT 1")).as("a read of an ordinary table").startsWith("ro");
        statement.execute("DROP TEMPORARY TABLE tmp_probe");
        plainReadsGoToReplicas();
    }

    @Test
    void storedFunctionsRunOnThePrimaryAndBuiltInFunctionsOnReplicas() throws SQLException {
        for (int i = 0; i < 3; i++) {
            assertThat(where("SELECT @@server_id, f_one()")).as("stored function").isEqualTo("primary");
            assertThat(where("SELECT @@server_id, " + DB + ".f_one() FROM t LIMIT 1")).isEqualTo("primary");
            assertThat(where("SELECT @@server_id, UPPER('x'), NOW(), COALESCE(NULL, 1)")).as("built-ins")
                    .startsWith("ro");
        }
    }

    @Test
    void callRunsOnThePrimaryAndPinsTheSessionThere() throws SQLException {
        plainReadsGoToReplicas();
        assertThat(where("CALL p_sid()")).as("the procedure's own SELECT @@server_id").isEqualTo("primary");
        for (int i = 0; i < 6; i++) {
            assertThat(where("SELECT @@server_id")).as("read after CALL").isEqualTo("primary");
        }
        reconnect();
        plainReadsGoToReplicas();
    }

    @Test
    void aMultiStatementQueryPinsTheSessionToThePrimary() throws SQLException {
        plainReadsGoToReplicas();
        statement.execute("SELECT @@server_id; SELECT @@server_id");
        List<String> answered = new ArrayList<>();
        do {
            try (ResultSet rs = statement.getResultSet()) {
                rs.next();
                answered.add(names.name(rs.getLong(1)));
            }
        } while (statement.getMoreResults());
        assertThat(answered).containsExactly("primary", "primary");
        for (int i = 0; i < 6; i++) {
            assertThat(where("SELECT @@server_id")).as("read after a multi-statement query").isEqualTo("primary");
        }
        reconnect();
        plainReadsGoToReplicas();
    }

    @Test
    void lastInsertIdIsAskedOfThePrimary() throws SQLException {
        statement.executeUpdate("INSERT INTO t (sid, v) VALUES (0, 'lid')", Statement.RETURN_GENERATED_KEYS);
        long generated;
        try (ResultSet keys = statement.getGeneratedKeys()) {
            keys.next();
            generated = keys.getLong(1);
        }
        for (int i = 0; i < 3; i++) {
            try (ResultSet rs = statement.executeQuery("SELECT @@server_id, LAST_INSERT_ID()")) {
                rs.next();
                assertThat(names.name(rs.getLong(1))).isEqualTo("primary");
                assertThat(rs.getLong(2)).as("LAST_INSERT_ID()").isEqualTo(generated).isPositive();
            }
        }
        statement.executeUpdate("DELETE FROM t WHERE v = 'lid'");
    }

    @Test
    void foundRowsIsAskedOfTheReplicaThatRanTheCalcFoundRowsRead() throws SQLException {
        List<String> replicas = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String ranOn = where("SELECT SQL_CALC_FOUND_ROWS @@server_id FROM t LIMIT 1");
            assertThat(ranOn).startsWith("ro");
            replicas.add(ranOn);
            try (ResultSet rs = statement.executeQuery("SELECT FOUND_ROWS(), @@server_id")) {
                rs.next();
                assertThat(rs.getLong(1)).as("FOUND_ROWS() after the read on " + ranOn).isEqualTo(ROWS);
                assertThat(names.name(rs.getLong(2))).as("where FOUND_ROWS() ran").isEqualTo(ranOn);
            }
        }
        // The reads themselves went round the replicas, so "the same node" was not an accident.
        assertThat(replicas).containsAll(List.of("ro1", "ro2", "ro3"));
    }

    @Test
    void showWarningsIsAskedOfTheReplicaThatRanTheRead() throws SQLException {
        List<String> replicas = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String ranOn = where("SELECT @@server_id, CAST('not a number' AS SIGNED)");
            assertThat(ranOn).startsWith("ro");
            replicas.add(ranOn);
            List<String> warnings = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery("SHOW WARNINGS")) {
                while (rs.next()) {
                    warnings.add(rs.getInt("Code") + " " + rs.getString("Message"));
                }
            }
            assertThat(warnings).as("SHOW WARNINGS after a warning on " + ranOn).hasSize(1);
            assertThat(warnings.get(0)).startsWith("1292 ").contains("not a number");
            try (ResultSet rs = statement.executeQuery("SELECT @@warning_count, @@server_id")) {
                rs.next();
                assertThat(names.name(rs.getLong(2))).as("where @@warning_count ran").isEqualTo(ranOn);
            }
        }
        assertThat(replicas).containsAll(List.of("ro1", "ro2", "ro3"));
    }

    @Test
    void sqlLevelPrepareAndExecuteRunOnThePrimary() throws SQLException {
        statement.execute("PREPARE sql_level FROM 'SELECT @@server_id'");
        for (int i = 0; i < 3; i++) {
            assertThat(where("EXECUTE sql_level")).isEqualTo("primary");
        }
        statement.execute("DEALLOCATE PREPARE sql_level");
        plainReadsGoToReplicas();
    }

    @Test
    void userLocksSequencesAndSelectIntoRunOnThePrimary() throws SQLException {
        assertThat(where("SELECT @@server_id, GET_LOCK('it_routing_lock', 0)")).isEqualTo("primary");
        assertThat(where("SELECT @@server_id, IS_USED_LOCK('it_routing_lock')")).isEqualTo("primary");
        assertThat(where("SELECT @@server_id, RELEASE_LOCK('it_routing_lock')")).isEqualTo("primary");
        statement.execute("CREATE SEQUENCE seq_probe");
        try {
            // NEXTVAL writes the sequence: on a read_only replica it would fail.
            assertThat(where("SELECT @@server_id, NEXTVAL(seq_probe)")).isEqualTo("primary");
            assertThat(where("SELECT @@server_id, LASTVAL(seq_probe)")).isEqualTo("primary");
        } finally {
            statement.execute("DROP SEQUENCE seq_probe");
        }
        statement.execute("SELECT @@server_id INTO @where_into");
        assertThat(where("SELECT @where_into")).as("the value SELECT … INTO stored").isEqualTo("primary");
        plainReadsGoToReplicas();
    }

    @Test
    void readsWhileTablesAreLockedRunOnThePrimary() throws SQLException {
        statement.execute("LOCK TABLES t READ");
        try {
            for (int i = 0; i < 3; i++) {
                assertThat(where("SELECT @@server_id FROM t LIMIT 1")).as("read under LOCK TABLES").isEqualTo("primary");
            }
        } finally {
            statement.execute("UNLOCK TABLES");
        }
        plainReadsGoToReplicas();
    }

    @Test
    void rowCountIsAskedOfThePrimaryAfterAWrite() throws SQLException {
        statement.executeUpdate("UPDATE t SET v = 'rc' WHERE v = 'seed' AND id <= 2");
        try (ResultSet rs = statement.executeQuery("SELECT ROW_COUNT(), @@server_id")) {
            rs.next();
            assertThat(rs.getLong(1)).as("ROW_COUNT() of the UPDATE").isEqualTo(2);
            assertThat(names.name(rs.getLong(2))).isEqualTo("primary");
        }
        statement.executeUpdate("UPDATE t SET v = 'seed' WHERE v = 'rc'");
    }

    @Test
    void showStatementsAreReadsForReplicas() throws SQLException {
        List<String> answered = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            try (ResultSet rs = statement.executeQuery("SHOW VARIABLES LIKE 'server_id'")) {
                rs.next();
                answered.add(names.name(rs.getLong(2)));
            }
        }
        assertThat(answered).containsExactlyInAnyOrder("ro1", "ro2", "ro3");
    }

    @Test
    void aHandlerStatementPinsTheSessionToThePrimary() throws SQLException {
        plainReadsGoToReplicas();
        statement.execute("HANDLER t OPEN");
        try (ResultSet rs = statement.executeQuery("HANDLER t READ `PRIMARY` FIRST")) {
            assertThat(rs.next()).as("HANDLER read on the node holding the open handler").isTrue();
        }
        statement.execute("HANDLER t CLOSE");
        for (int i = 0; i < 4; i++) {
            assertThat(where("SELECT @@server_id")).as("read after HANDLER").isEqualTo("primary");
        }
    }

    @Test
    void resetConnectionEndsPinningAndTheSessionsState() throws SQLException {
        statement.execute("SET @kept = 1");
        assertThat(where("CALL p_sid()")).isEqualTo("primary");
        assertThat(where("SELECT @@server_id")).as("pinned after CALL").isEqualTo("primary");
        connection.unwrap(org.mariadb.jdbc.Connection.class).reset(); // COM_RESET_CONNECTION (useResetConnection=true)
        statement = connection.createStatement();
        statement.execute("USE " + DB);
        plainReadsGoToReplicas();
        try (ResultSet rs = statement.executeQuery("SELECT @@server_id, @kept")) {
            rs.next();
            assertThat(names.name(rs.getLong(1))).as("no longer pinned").isNotEqualTo("primary");
            assertThat(rs.getObject(2)).as("@kept after the reset").isNull();
        }
    }

    private void reconnect() throws SQLException {
        disconnect();
        connect();
    }
}
