package dev.sluice.it.transparency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.protocol.response.ErrorCodes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One connection id: {@code CONNECTION_ID()} answers the id of the client's handshake on a replica
 * and on the primary, in the text and the binary protocol, with the column the server would
 * describe; {@code KILL} and {@code KILL QUERY} take that id, alone or inside a text of several
 * statements (as node mysql2's pool tests send them), with the server's rule on who may kill whom.
 */
class OneConnectionIdTest {
    private static final String OTHER_USER = "it_kill_other";
    private static final String OTHER_PASSWORD = "it-kill-other-pw";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Long enough that only a KILL QUERY ends it within the test's wait. */
    private static final int LONG_SLEEP_SECONDS = 120;
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static long primaryServerId;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP USER IF EXISTS '" + OTHER_USER + "'@'127.0.0.1'",
                "CREATE USER '" + OTHER_USER + "'@'127.0.0.1' IDENTIFIED BY '" + OTHER_PASSWORD + "'");
        cluster.waitForReplicasCaughtUp(TIMEOUT);
        primaryServerId = cluster.serverIdOf(cluster.primary());
        sluice = SluiceHarness.readWrite(cluster, "");
    }

    @AfterAll
    static void stop() {
        try {
            if (sluice != null) {
                sluice.close();
            }
        } finally {
            cluster.exec(cluster.primary(), "DROP USER IF EXISTS '" + OTHER_USER + "'@'127.0.0.1'");
        }
    }

    private static RawMysqlClient rawLogin() throws Exception {
        return RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD, "test",
                TIMEOUT);
    }

    private static Connection connect(String options) throws SQLException {
        return DriverManager.getConnection(sluice.mariadbUrl("rw", options));
    }

    private static long handshakeId(Connection c) throws SQLException {
        return c.unwrap(org.mariadb.jdbc.Connection.class).getThreadId();
    }

    @Test
    void textProtocolAnswersTheHandshakeIdOnAReplicaAndOnThePrimary() throws Exception {
        try (RawMysqlClient c = rawLogin()) {
            String id = Long.toString(c.greeting().connectionId());
            List<String> onReplica = c.query("SELECT CONNECTION_ID(), @@server_id").get(0);
            assertThat(onReplica.get(0)).isEqualTo(id);
            assertThat(Long.parseLong(onReplica.get(1))).isNotEqualTo(primaryServerId);
            List<String> onPrimary = c.query("/*FORCE_MASTER*/ SELECT CONNECTION_ID(), @@server_id").get(0);
            assertThat(onPrimary).containsExactly(id, Long.toString(primaryServerId));
            assertThat(c.query("SELECT 'x', connection_id() + 1 AS next, CONNECTION_ID() = " + id).get(0))
                    .containsExactly("x", Long.toString(Long.parseLong(id) + 1), "1");
        }
    }

    @Test
    void theColumnIsDescribedAsTheServerDescribesIt() throws Exception {
        List<String> direct;
        try (RawMysqlClient c = RawMysqlClient.login(cluster.primary().port(), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", TIMEOUT)) {
            direct = columnDefinitions(c);
        }
        try (RawMysqlClient c = rawLogin()) {
            assertThat(columnDefinitions(c)).isEqualTo(direct);
        }
    }

    /** The column definition packets (hex) of a few select lists that call the function. */
    private static List<String> columnDefinitions(RawMysqlClient c) throws Exception {
        List<String> out = new ArrayList<>();
        for (String sql : List.of("SELECT CONNECTION_ID()", "SELECT connection_id( /* c */ ) + 0, 1",
                "SELECT CONNECTION_ID() AS id", "SELECT /* a */ CONNECTION_ID() -- x\n + 1 /* z */",
                "SELECT CONNECTION_ID() /*M!100000 +2*/, DISTINCT_ROW_NOT_A_WORD.x FROM (SELECT 1 AS x) "
                        + "DISTINCT_ROW_NOT_A_WORD")) {
            c.sendQuery(sql);
            int columns = c.readPacket().payload()[0];
            for (int i = 0; i < columns; i++) {
                out.add(c.readPacket().hex());
            }
            // the rest: an EOF unless the client deprecated it, the row, then the closing EOF or OK
            RawMysqlClient.RawPacket rest = c.readPacket();
            if (rest.isEof()) {
                rest = c.readPacket();
            }
            while (!rest.isEof()) {
                rest = c.readPacket();
            }
        }
        return out;
    }

    @Test
    void binaryProtocolAnswersTheHandshakeIdOnAReplicaAndOnThePrimary() throws Exception {
        try (Connection c = connect("useServerPrepStmts=true")) {
            long id = handshakeId(c);
            try (PreparedStatement ps = c.prepareStatement("SELECT CONNECTION_ID(), @@server_id, ? AS tag")) {
                ps.setInt(1, 7);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(id);
                    assertThat(rs.getLong(2)).isNotEqualTo(primaryServerId);
                    ResultSetMetaData meta = rs.getMetaData();
                    assertThat(meta.getColumnLabel(1)).isEqualTo("CONNECTION_ID()");
                    assertThat(meta.getColumnType(1)).isEqualTo(Types.INTEGER);
                }
            }
            try (PreparedStatement ps = c.prepareStatement("/*FORCE_MASTER*/ SELECT CONNECTION_ID(), @@server_id");
                    ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(id);
                assertThat(rs.getLong(2)).isEqualTo(primaryServerId);
            }
        }
    }

    @Test
    void killInsideAMultiStatementTextEndsTheSessionItNames() throws Exception {
        try (Connection victim = connect(""); Connection killer = connect("allowMultiQueries=true")) {
            long victimId = handshakeId(victim);
            try (Statement s = killer.createStatement()) {
                s.execute("KILL " + victimId + "; SELECT 1");
                assertThat(s.getMoreResults()).isTrue();
                try (ResultSet rs = s.getResultSet()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(1);
                }
            }
            await().atMost(TIMEOUT).until(() -> !stillAnswers(victim));
            SQLException unknown = catchThrowableOfType(
                    () -> killer.createStatement().execute("KILL " + victimId + "; SELECT 1"), SQLException.class);
            assertThat(unknown.getErrorCode()).isEqualTo(ErrorCodes.ER_NO_SUCH_THREAD);
            assertThat(unknown.getMessage()).contains("Unknown thread id: " + victimId);
        }
    }

    private static boolean stillAnswers(Connection c) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            return rs.next();
        } catch (SQLException gone) {
            return false;
        }
    }

    @Test
    void killQueryInterruptsASleepRunningOnAnotherConnectionAloneOrAmongOtherStatements() throws Exception {
        try (Connection victim = connect(""); Connection killer = connect("allowMultiQueries=true")) {
            long victimId = handshakeId(victim);
            for (String kill : List.of("KILL QUERY " + victimId, "KILL QUERY " + victimId + "; SELECT 1")) {
                CompletableFuture<String> sleeping = CompletableFuture.supplyAsync(() -> {
                    try (Statement s = victim.createStatement();
                            ResultSet rs = s.executeQuery("SELECT SLEEP(" + LONG_SLEEP_SECONDS + ")")) {
                        rs.next();
                        return rs.getString(1);
                    } catch (SQLException interrupted) {
                        return "error " + interrupted.getErrorCode();
                    }
                });
                await().atMost(TIMEOUT).until(OneConnectionIdTest::sleepRunsSomewhere);
                try (Statement s = killer.createStatement()) {
                    s.execute(kill);
                }
                // MariaDB answers an interrupted SLEEP with 1 (or, in some versions, error 1317)
                assertThat(sleeping.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as(kill).isIn("1", "error 1317");
                await().atMost(TIMEOUT).until(() -> !sleepRunsSomewhere());
                assertThat(stillAnswers(victim)).as(kill).isTrue();
            }
        }
    }

    private static boolean sleepRunsSomewhere() {
        for (SandboxNode node : cluster.nodes()) {
            String running = cluster.rootQuery(node, "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                    + "WHERE INFO = 'SELECT SLEEP(" + LONG_SLEEP_SECONDS + ")'");
            if (!"0".equals(running.trim())) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aUserWithoutConnectionAdminMayNotKillAnotherUsersSession() throws Exception {
        try (Connection victim = connect("");
                Connection other = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + sluice.port("rw")
                        + "/?user=" + OTHER_USER + "&password=" + OTHER_PASSWORD + "&allowMultiQueries=true")) {
            long victimId = handshakeId(victim);
            for (String sql : List.of("KILL " + victimId, "KILL QUERY " + victimId,
                    "KILL " + victimId + "; SELECT 1")) {
                SQLException denied = catchThrowableOfType(() -> other.createStatement().execute(sql),
                        SQLException.class);
                assertThat((Throwable) denied).as(sql).isNotNull();
                assertThat(denied.getErrorCode()).as(sql).isEqualTo(ErrorCodes.ER_KILL_DENIED_ERROR);
                assertThat(denied.getMessage()).as(sql).contains("You are not owner of thread " + victimId);
            }
            assertThat(stillAnswers(victim)).isTrue();
            // An account holding CONNECTION ADMIN may kill another user's session.
            long otherId = handshakeId(other);
            try (Connection admin = connect("")) {
                admin.createStatement().execute("KILL " + otherId);
            }
            await().atMost(TIMEOUT).until(() -> !stillAnswers(other));
        }
    }
}
