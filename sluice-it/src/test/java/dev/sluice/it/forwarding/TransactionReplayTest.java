package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A transaction whose primary connection is killed between two of its statements (BEHAVIOUR §10):
 * on an endpoint with {@code transaction-replay} it is run again on a new connection and the
 * client goes on as if nothing happened, in the text protocol and with server-side prepared
 * statements — unless the replay reads other data than the client got, or the transaction holds
 * what cannot be replayed (a cursor); without it, the client gets the error.
 */
class TransactionReplayTest {
    private static final String TABLE = "it_replay";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.start(cluster, """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    weights: {primary: 100}
                    transaction-replay: true
                  - name: plain
                    listen: 127.0.0.1:0
                    weights: {primary: 100}
                """);
    }

    @BeforeEach
    void freshTable() {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE,
                "CREATE TABLE test." + TABLE + " (id INT PRIMARY KEY, v VARCHAR(20))");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE);
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void aTransactionKilledBetweenStatementsIsReplayedAndCommitsOnce() throws Exception {
        double before = replays("replayed");
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""))) {
            long backend = backendId(c);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + TABLE + " VALUES (1, 'a')");
                assertThat(value(s, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo("a");

                PrimaryProcesslist.kill(backend);

                assertThat(s.executeUpdate("INSERT INTO " + TABLE + " VALUES (2, 'b')")).isEqualTo(1);
                assertThat(value(s, "SELECT GROUP_CONCAT(v ORDER BY id) FROM " + TABLE)).isEqualTo("a,b");
                c.commit();
            }
            assertThat(backendId(c)).as("a new connection to the primary").isNotEqualTo(backend);
        }
        assertThat(stored()).isEqualTo("1:a,2:b");
        assertThat(replays("replayed") - before).isEqualTo(1.0);
    }

    @Test
    void aReplayThatReadsOtherDataEndsTheSession() throws Exception {
        cluster.exec(cluster.primary(), "INSERT INTO test." + TABLE + " VALUES (1, 'a')");
        double before = replays("differed");
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""))) {
            long backend = backendId(c);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                assertThat(value(s, "SELECT v FROM " + TABLE + " WHERE id = 1")).isEqualTo("a");
                s.executeUpdate("INSERT INTO " + TABLE + " VALUES (2, 'b')");
                // Another client changes the row the transaction read, after it read it. Under
                // autocommit=0 the SELECT opened the transaction: it is the first of its statements.
                cluster.exec(cluster.primary(), "UPDATE test." + TABLE + " SET v = 'changed' WHERE id = 1");

                PrimaryProcesslist.kill(backend);

                assertThatThrownBy(() -> s.executeUpdate("INSERT INTO " + TABLE + " VALUES (3, 'c')"))
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).startsWith("08"))
                        .hasMessageContaining("did not commit")
                        .hasMessageContaining("its replay was tried and differed")
                        .hasMessageContaining("statement 1 of 2 (SELECT v FROM " + TABLE);
            }
        }
        assertThat(stored()).isEqualTo("1:changed");
        assertThat(replays("differed") - before).isEqualTo(1.0);
    }

    /**
     * Server-side prepared statements: an INSERT and a SELECT kept open across the loss, and an
     * UPDATE whose value goes as long data and whose statement the client closes before the loss
     * (MySQL Connector/J closes it at once; MariaDB's keeps it in its cache).
     */
    @ParameterizedTest
    @ValueSource(strings = {"mariadb", "mysql"})
    void aTransactionOfPreparedStatementsIsReplayedAndCommitsOnce(String driver) throws Exception {
        double before = replays("replayed");
        String url = driver.equals("mariadb") ? sluice.mariadbUrl("rw", "useServerPrepStmts=true")
                : sluice.mysqlUrl("rw", "useServerPrepStmts=true");
        try (Connection c = DriverManager.getConnection(url)) {
            long backend = backendId(c);
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE + " VALUES (?, ?)");
                    PreparedStatement select = c.prepareStatement("SELECT v FROM " + TABLE + " WHERE id = ?")) {
                insert.setInt(1, 1);
                insert.setString(2, "a");
                assertThat(insert.executeUpdate()).isEqualTo(1);
                select.setInt(1, 1);
                assertThat(value(select)).isEqualTo("a");
                try (PreparedStatement update = c.prepareStatement("UPDATE " + TABLE + " SET v = ? WHERE id = ?")) {
                    update.setBinaryStream(1, new ByteArrayInputStream("x".getBytes(StandardCharsets.UTF_8)));
                    update.setInt(2, 1);
                    assertThat(update.executeUpdate()).isEqualTo(1);
                }

                PrimaryProcesslist.kill(backend);

                insert.setInt(1, 2);
                insert.setString(2, "b");
                assertThat(insert.executeUpdate()).isEqualTo(1);
                select.setInt(1, 1);
                assertThat(value(select)).isEqualTo("x");
                c.commit();
            }
            assertThat(backendId(c)).as("a new connection to the primary").isNotEqualTo(backend);
        }
        assertThat(stored()).isEqualTo("1:x,2:b");
        assertThat(replays("replayed") - before).isEqualTo(1.0);
    }

    @Test
    void aReplayedExecutionThatReadsOtherDataEndsTheSession() throws Exception {
        cluster.exec(cluster.primary(), "INSERT INTO test." + TABLE + " VALUES (1, 'a')");
        double before = replays("differed");
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", "useServerPrepStmts=true"))) {
            long backend = backendId(c);
            c.setAutoCommit(false);
            try (PreparedStatement select = c.prepareStatement("SELECT v FROM " + TABLE + " WHERE id = ?");
                    PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE + " VALUES (?, ?)")) {
                select.setInt(1, 1);
                assertThat(value(select)).isEqualTo("a");
                insert.setInt(1, 2);
                insert.setString(2, "b");
                insert.executeUpdate();
                cluster.exec(cluster.primary(), "UPDATE test." + TABLE + " SET v = 'changed' WHERE id = 1");

                PrimaryProcesslist.kill(backend);

                insert.setInt(1, 3);
                insert.setString(2, "c");
                assertThatThrownBy(insert::executeUpdate)
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("its replay was tried and differed")
                        .hasMessageContaining("statement 1 of 2 (SELECT v FROM " + TABLE + " WHERE id = ?)");
            }
        }
        assertThat(stored()).isEqualTo("1:changed");
        assertThat(replays("differed") - before).isEqualTo(1.0);
    }

    @Test
    void aTransactionThatReadThroughACursorIsNotReplayed() throws Exception {
        double before = replays("not-replayable");
        Connection c = DriverManager.getConnection(sluice.mysqlUrl("rw", "useServerPrepStmts=true&useCursorFetch=true"));
        try {
            long backend = backendId(c);
            c.setAutoCommit(false);
            PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE + " VALUES (?, 'a')");
            PreparedStatement select = c.prepareStatement("SELECT v FROM " + TABLE);
            insert.setInt(1, 1);
            insert.executeUpdate();
            select.setFetchSize(1);
            assertThat(value(select)).isEqualTo("a");

            PrimaryProcesslist.kill(backend);

            insert.setInt(1, 2);
            assertThatThrownBy(insert::executeUpdate).isInstanceOf(SQLException.class)
                    .hasMessageContaining("it was not replayed: a prepared statement opened a cursor in it");
        } finally {
            closeEnded(c);
        }
        assertThat(stored()).isEqualTo("nothing");
        assertThat(replays("not-replayable") - before).isEqualTo(1.0);
    }

    @Test
    void withoutReplayTheTransactionEndsWithTheError() throws Exception {
        double before = replays("replayed") + replays("differed") + replays("failed") + replays("not-replayable");
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("plain", ""))) {
            long backend = backendId(c);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + TABLE + " VALUES (1, 'a')");

                PrimaryProcesslist.kill(backend);

                assertThatThrownBy(() -> s.executeUpdate("INSERT INTO " + TABLE + " VALUES (2, 'b')"))
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).startsWith("08"))
                        .hasMessageContaining("did not commit; it is not replayed");
            }
        }
        assertThat(stored()).isEqualTo("nothing");
        assertThat(replays("replayed") + replays("differed") + replays("failed") + replays("not-replayable"))
                .as("no replay is tried").isEqualTo(before);
    }

    private static long backendId(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            return Long.parseLong(value(s, "SELECT @@pseudo_thread_id"));
        }
    }

    private static String value(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    private static String value(PreparedStatement s) throws SQLException {
        try (ResultSet rs = s.executeQuery()) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    /**
     * Closes a connection whose session Sluice ended after the error: MySQL Connector/J closes its
     * statements and rolls back first, and learns only then that the connection is gone.
     */
    private static void closeEnded(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            assertThat(e.getMessage()).contains("Communications link failure");
        }
    }

    private static String stored() {
        return cluster.queryString(cluster.primary(), "SELECT COALESCE(GROUP_CONCAT(id, ':', v ORDER BY id), "
                + "'nothing') FROM test." + TABLE);
    }

    /** {@code sluice_transaction_replays_total{outcome}} now; 0 before its first count. */
    private static double replays(String outcome) {
        String text = sluice.server().runtime().metrics().scrape();
        Matcher m = Pattern.compile("^sluice_transaction_replays_total\\{outcome=\"" + Pattern.quote(outcome)
                + "\"[^}]*} (\\S+)$", Pattern.MULTILINE).matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0.0;
    }
}
