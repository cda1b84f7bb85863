package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.SandboxCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The session's backend connection dies while the client is between two commands (KILL on the
 * primary, as a server restart or a wait_timeout would). Going direct, the client's next command
 * fails: the connection is gone, and with it the open transaction and the prepared statements.
 * Through Sluice the client must not be told otherwise: no half transaction committed as if whole,
 * no prepared statement executed under an id the backend never gave it.
 */
class BackendDiesBetweenCommandsTest {
    private static final String TABLE = "it_idle_death";

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with(ForwardingEndpoint.SECTION);

    @AfterAll
    static void dropTable() {
        SandboxCluster cluster = sluice.cluster();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE);
    }

    private static String directUrl(String options) {
        SandboxCluster cluster = sluice.cluster();
        return cluster.jdbcUrl(cluster.primary()) + "?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + "&" + options;
    }

    private static long backendId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@pseudo_thread_id")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** BEGIN; INSERT 1; (backend dies); INSERT 2; COMMIT — what the client is told, and what is stored. */
    private static List<String> transactionScenario(String url) throws Exception {
        SandboxCluster cluster = sluice.cluster();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE, "CREATE TABLE test." + TABLE
                + " (id INT PRIMARY KEY)");
        List<String> seen = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url)) {
            long backend = backendId(c);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + TABLE + " VALUES (1)");
                PrimaryProcesslist.kill(backend);
                s.executeUpdate("INSERT INTO " + TABLE + " VALUES (2)");
                seen.add("insert 2 ok");
                c.commit();
                seen.add("commit ok");
            } catch (SQLException e) {
                seen.add("error, SQLState class " + String.valueOf(e.getSQLState()).substring(0, 2));
            }
        }
        seen.add("stored: " + cluster.queryString(cluster.primary(),
                "SELECT COALESCE(GROUP_CONCAT(id ORDER BY id), 'nothing') FROM test." + TABLE));
        return seen;
    }

    @Test
    void aTransactionIsNotSplitWhenItsBackendDiesBetweenStatements() throws Exception {
        List<String> direct = transactionScenario(directUrl(""));
        List<String> through = transactionScenario(sluice.sluice().mariadbUrl("rw", ""));
        assertThat(direct).containsExactly("error, SQLState class 08", "stored: nothing");
        assertThat(through).as("through Sluice vs direct " + direct).isEqualTo(direct);
    }

    /**
     * A statement prepared before the backend died is executed after it. Direct: a connection
     * error. Through Sluice: the right result (re-prepared on a new backend) or a connection error —
     * never ERR 1243 about a statement id the client was never given.
     */
    @Test
    void aPreparedStatementIsNotExecutedUnderAStaleBackendIdAfterItsBackendDies() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.sluice().mariadbUrl("rw", "useServerPrepStmts=true"));
                PreparedStatement a = c.prepareStatement("SELECT CONCAT('statement A: ', ?)")) {
            a.setString(1, "before");
            try (ResultSet rs = a.executeQuery()) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("statement A: before");
            }
            PrimaryProcesslist.kill(backendId(c));
            String outcome;
            try {
                // Other statements prepared in the meantime take the ids the new backend gives out.
                for (int i = 0; i < 3; i++) {
                    try (PreparedStatement x = c.prepareStatement("SELECT CONCAT('statement X" + i + ": ', ?)")) {
                        x.setString(1, "x");
                        x.executeQuery().close();
                    }
                }
                a.setString(1, "after");
                try (ResultSet rs = a.executeQuery()) {
                    rs.next();
                    outcome = rs.getString(1);
                }
            } catch (SQLException e) {
                outcome = "error " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getMessage();
            }
            assertThat(outcome).as("executing statement A after its backend died")
                    .satisfiesAnyOf(
                            o -> assertThat(o).isEqualTo("statement A: after"),
                            o -> assertThat(o).startsWith("error").contains(" 08"));
        }
    }
}
