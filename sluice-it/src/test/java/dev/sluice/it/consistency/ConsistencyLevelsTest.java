package dev.sluice.it.consistency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §5 end to end: what each consistency level promises, on replicas made stale for real by
 * {@code MASTER_DELAY} (up and readable, but applying each write seconds late), and that a
 * level makes no promise it does not keep: {@code eventual} does read stale there. The checker in
 * sluice-bench measures the same under load; these tests pin the rules.
 */
class ConsistencyLevelsTest {
    private static final int DELAY_SECONDS = 2;
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static long primaryServerId;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "CREATE DATABASE IF NOT EXISTS test",
                "CREATE TABLE IF NOT EXISTS test.consistency (id INT PRIMARY KEY, v BIGINT NOT NULL)",
                "REPLACE INTO test.consistency VALUES (1, 0), (2, 0)");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        primaryServerId = cluster.serverIdOf(cluster.primary());
        String common = """
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}
                    consistency-timeout: 50ms
                """;
        sluice = SluiceHarness.start(cluster, "endpoints:\n"
                + "  - name: eventual\n" + common + "    consistency: eventual\n"
                + "  - name: session\n" + common + "    consistency: session\n"
                + "  - name: global\n" + common + "    consistency: global\n"
                + "  - name: strict\n" + common + "    consistency: session\n"
                + "    consistency-timeout-action: error\n");
    }

    @AfterAll
    static void stop() {
        if (sluice != null) {
            sluice.close();
        }
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.consistency");
    }

    @AfterEach
    void replicationBack() {
        cluster.restoreHealthy();
    }

    @Test
    void theTokenIsTheGtidOfTheSessionsLastCommitEvenAfterTheDriverSetItsOwnTrackedVariables() throws Exception {
        // MariaDB Connector/J sets session_track_system_variables at connect; do it once more by hand.
        try (Connection c = connect("session")) {
            exec(c, "SET session_track_system_variables = 'autocommit,time_zone'");
            exec(c, "UPDATE test.consistency SET v = v + 1 WHERE id = 1");
            String token = queryString(c, "SELECT sluice_last_gtid()");
            String primaryLast = cluster.queryString(cluster.primary(), "SELECT @@gtid_binlog_pos");
            assertThat(token).as("sluice_last_gtid() after a commit").isNotNull();
            assertThat(primaryLast).contains(token);
        }
    }

    @Test
    void eventualReadsStaleFromAReplicaThatHasNotAppliedTheWrite() throws Exception {
        delayEveryReplica();
        try (Connection c = connect("eventual")) {
            long written = write(c, 1);
            Read read = read(c, 1);
            assertThat(read.serverId).isNotEqualTo(primaryServerId);
            assertThat(read.value).as("the checker can fail: eventual promises nothing").isLessThan(written);
        }
    }

    @Test
    void sessionReadsItsOwnWriteAndFallsBackToThePrimaryWhenNoReplicaHasIt() throws Exception {
        delayEveryReplica();
        try (Connection c = connect("session")) {
            long written = write(c, 1);
            Read read = read(c, 1);
            assertThat(read.value).isEqualTo(written);
            assertThat(read.serverId).as("no replica has the write; timeout action primary").isEqualTo(primaryServerId);
        }
    }

    @Test
    void sessionKnowsItsWritesInADatabaseOfTwoOrFourByteCharacters() throws Exception {
        // With the session's database in UTF-16 or UTF-32, MariaDB puts stray zero bytes before the
        // session state of its OKs; the GTIDs in them must still count.
        for (String charset : new String[] {"utf16", "utf32"}) {
            String schema = "wide_" + charset;
            try (Connection c = connect("session")) {
                exec(c, "CREATE DATABASE " + schema + " CHARACTER SET " + charset);
                cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
                delayEveryReplica();
                exec(c, "USE " + schema);
                exec(c, "CREATE TABLE t (id INT PRIMARY KEY)");
                exec(c, "INSERT INTO t VALUES (1)");
                assertThat(queryString(c, "SELECT COUNT(*) FROM t"))
                        .as("the replicas have the database, not the table: the read waits for the INSERT")
                        .isEqualTo("1");
            } finally {
                cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + schema);
                cluster.restoreHealthy();
            }
        }
    }

    @Test
    void sessionKnowsAWriteThatAnswersRowsToAClientWithoutDeprecateEof() throws Exception {
        // The raw client negotiates neither CLIENT_DEPRECATE_EOF nor session tracking, as the mariadb
        // CLI, PyMySQL or PHP mysqli: the EOF that ends an INSERT … RETURNING cannot carry its GTID.
        try (RawMysqlClient client = RawMysqlClient.login(sluice.port("session"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", Duration.ofSeconds(10))) {
            delayEveryReplica();
            long value = System.nanoTime();
            assertThat(client.query("INSERT INTO test.consistency VALUES (3, " + value + ") RETURNING id"))
                    .containsExactly(List.of("3"));
            assertThat(client.query("SELECT v FROM test.consistency WHERE id = 3"))
                    .as("the replicas lag behind the INSERT: only the primary has the row")
                    .containsExactly(List.of(String.valueOf(value)));
            // The INSERT's GTID never reached Sluice: the token must not leave it out (an older GTID,
            // or NULL for this session's first write, would let another connection read without it).
            String primaryAfterInsert = cluster.queryString(cluster.primary(), "SELECT @@gtid_binlog_pos");
            assertThat(client.query("SELECT sluice_last_gtid()"))
                    .as("the primary's position, asked after the write, stands in for its lost GTID")
                    .containsExactly(List.of(primaryAfterInsert));
        } finally {
            cluster.exec(cluster.primary(), "DELETE FROM test.consistency WHERE id = 3");
        }
    }

    @Test
    void sessionReadsGoToReplicasWhenTheyHaveTheWrite() throws Exception {
        Set<Long> servers = new HashSet<>();
        try (Connection c = connect("session")) {
            for (int i = 0; i < 30; i++) {
                long written = write(c, 1);
                Read read = read(c, 1);
                assertThat(read.value).isEqualTo(written);
                servers.add(read.serverId);
            }
        }
        assertThat(servers).as("reads waited on replicas rather than all going to the primary")
                .anyMatch(id -> id != primaryServerId);
    }

    @Test
    void timeoutActionErrorGivesTheSpecMessage() throws Exception {
        delayEveryReplica();
        try (Connection c = connect("strict")) {
            write(c, 1);
            assertThatThrownBy(() -> read(c, 1)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("wait replication complete timeout, please retry");
            // The session goes on: the next statement works, and the read once replicas catch up.
            long again = write(c, 1);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> read(c, 1).value == again);
        }
    }

    @Test
    void globalSeesAnotherConnectionsCommitEvenOneMadeDirectlyOnThePrimary() throws Exception {
        delayEveryReplica();
        long written;
        try (Connection direct = cluster.connect(cluster.primary())) {
            written = write(direct, 2);
        }
        try (Connection c = connect("global")) {
            Read read = read(c, 2);
            assertThat(read.value).isEqualTo(written);
        }
        try (Connection c = connect("session")) {
            assertThat(read(c, 2).value).as("session makes no cross-connection promise").isLessThan(written);
        }
    }

    @Test
    void globalReadsThroughTheBinaryProtocolGoToReplicasToo() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("global", "useServerPrepStmts=true"))) {
            for (int i = 0; i < 5; i++) {
                try (java.sql.PreparedStatement s = c.prepareStatement("SELECT v, @@server_id FROM test.consistency "
                        + "WHERE id = ?")) {
                    s.setInt(1, 1);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        assertThat(rs.getLong(2)).as("a prepared read waits on a replica like a plain one")
                                .isNotEqualTo(primaryServerId);
                    }
                }
            }
        }
    }

    @Test
    void aTokenCarriesReadYourWritesToAnotherConnection() throws Exception {
        try (Connection writer = connect("eventual"); Connection reader = connect("eventual")) {
            read(reader, 1);
            delayEveryReplica();
            long written = write(writer, 1);
            String token = queryString(writer, "SELECT sluice_last_gtid()");
            assertThat(token).matches("\\d+-\\d+-\\d+");
            Read without = read(reader, 1);
            assertThat(without.value).as("without the token the reader is stale").isLessThan(written);
            Read with = read(reader, 1, "/*CONSISTENT_WITH=" + token + "*/ ");
            assertThat(with.value).isEqualTo(written);
            assertThat(with.serverId).isEqualTo(primaryServerId);
        }
    }

    @Test
    void aTokenReadWaitsOnAReplicaThatCatchesUp() throws Exception {
        try (Connection writer = connect("eventual"); Connection reader = connect("eventual")) {
            long written = write(writer, 1);
            String token = queryString(writer, "SELECT sluice_last_gtid()");
            Read with = read(reader, 1, "/*CONSISTENT_WITH=" + token + "*/ ");
            assertThat(with.value).isEqualTo(written);
        }
    }

    @Test
    void aHintOverridesTheLevel() throws Exception {
        delayEveryReplica();
        try (Connection c = connect("session")) {
            long written = write(c, 1);
            Read read = read(c, 1, "/*FORCE_SLAVE*/ ");
            assertThat(read.serverId).isNotEqualTo(primaryServerId);
            assertThat(read.value).as("FORCE_SLAVE reads a replica as it is").isLessThan(written);
        }
    }

    /** Every replica stays readable (replication runs, lag under the threshold) but applies late. */
    private static void delayEveryReplica() {
        for (SandboxNode replica : cluster.replicas()) {
            cluster.delayReplication(replica, DELAY_SECONDS);
        }
    }

    private static Connection connect(String endpoint) throws SQLException {
        return DriverManager.getConnection(sluice.mariadbUrl(endpoint, ""));
    }

    private static long write(Connection c, int id) throws SQLException {
        long value = System.nanoTime();
        exec(c, "UPDATE test.consistency SET v = " + value + " WHERE id = " + id);
        return value;
    }

    private record Read(long value, long serverId) {
    }

    private static Read read(Connection c, int id) throws SQLException {
        return read(c, id, "");
    }

    private static Read read(Connection c, int id, String hint) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(hint + "SELECT v, @@server_id FROM test.consistency WHERE id = " + id)) {
            rs.next();
            return new Read(rs.getLong(1), rs.getLong(2));
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String queryString(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
