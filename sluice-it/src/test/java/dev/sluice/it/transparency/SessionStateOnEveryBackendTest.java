package dev.sluice.it.transparency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.nio.charset.Charset;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every backend of a session carries the same session state, so a statement gives the answer it
 * would directly whichever node runs it: user variables set on the primary reach the replicas as
 * the values the primary produced; names written in the client's character set (KOI8-R here) are
 * read in it, for temporary tables and for a schema replayed on a backend opened later; and a
 * replayed command a replica refuses costs that replica its place in the session, never the
 * client an error.
 */
class SessionStateOnEveryBackendTest {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
    private static final Charset KOI8R = Charset.forName("KOI8-R");
    private static final int KOI8R_GENERAL_CI = 7;
    private static final String CYRILLIC_SCHEMA = "база_sluice";
    private static final String PRIMARY_ONLY_SCHEMA = "sluice_primary_only";
    private static final int READS = 12;
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "CREATE DATABASE IF NOT EXISTS `" + CYRILLIC_SCHEMA + "`");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.start(cluster, """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}
                    balancer: weighted
                  - name: session
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}
                    consistency: session
                """);
    }

    @AfterAll
    static void stop() {
        sluice.close();
        cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS `" + CYRILLIC_SCHEMA + "`");
    }

    @Test
    void aSystemVariableRestoredFromAUserVariableIsRestoredOnEveryBackend() throws Exception {
        String original = cluster.queryString(cluster.primary(), "SELECT @@optimizer_switch");
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SET @saved = @@optimizer_switch");
            s.execute("SET optimizer_switch = 'semijoin=off'");
            for (Answer a : reads(s, "SELECT @@optimizer_switch")) {
                assertThat(a.value()).as("on " + a.node()).contains("semijoin=off");
            }
            s.execute("SET optimizer_switch = @saved");
            List<Answer> after = reads(s, "SELECT @@optimizer_switch, @@server_id");
            assertThat(after).extracting(Answer::value).containsOnly(original);
            assertThat(nodes(after)).as("read on replicas").doesNotContain("primary");
        }
    }

    @Test
    void aFlagSetChangedTwiceHasBothChangesOnReplicasOpenedAfterThem() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SET optimizer_switch = 'mrr=on,mrr_sort_keys=on'");
            s.execute("SET optimizer_switch = 'rowid_filter=off'");
            List<Answer> answers = reads(s, "SELECT CONCAT_WS(',', LOCATE('mrr=on', @@optimizer_switch) > 0,"
                    + " LOCATE('mrr_sort_keys=on', @@optimizer_switch) > 0,"
                    + " LOCATE('rowid_filter=off', @@optimizer_switch) > 0), @@server_id");
            assertThat(answers).extracting(Answer::value).containsOnly("1,1,1");
            assertThat(nodes(answers)).as("read on replicas").doesNotContain("primary");
        }
    }

    @Test
    void aReplicaRefusingTheSessionsStateWhileItsReadWaitsForConsistencyCostsTheClientNoError() throws Exception {
        // The query cache on the primary only: SET query_cache_type = ON fails on every replica (1925).
        String before = cluster.queryString(cluster.primary(), "SELECT @@global.query_cache_type");
        cluster.rootQuery(cluster.primary(), "SET sql_log_bin = 0; SET GLOBAL query_cache_type = ON");
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS test.sluice_refused (id INT PRIMARY KEY)");
        try {
            for (int i = 0; i < READS; i++) {
                try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("session", ""));
                     Statement s = c.createStatement()) {
                    s.execute("SET query_cache_type = ON");
                    // A commit the replicas have not been seen to apply: the read waits on one first.
                    s.execute("INSERT INTO test.sluice_refused VALUES (" + i + ")");
                    assertThat(one(s, "SELECT COUNT(*) FROM test.sluice_refused WHERE id = " + i)).isEqualTo("1");
                }
            }
        } finally {
            cluster.rootQuery(cluster.primary(), "SET sql_log_bin = 0; SET GLOBAL query_cache_type = " + before);
            cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.sluice_refused");
        }
    }

    @Test
    void aUserVariableHoldsThePrimarysValueOnEveryReplica() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SET @r = RAND(), @t = CONCAT('x', UUID()), @n = NULL, @d = 1.50, @i = 42");
            String expected = one(s, "/*FORCE_MASTER*/ SELECT CONCAT_WS('|', @r, @t, IFNULL(@n, 'null'), @d, @i)");
            List<Answer> answers = reads(s, "SELECT CONCAT_WS('|', @r, @t, IFNULL(@n, 'null'), @d, @i), @@server_id");
            assertThat(answers).extracting(Answer::value).containsOnly(expected);
            assertThat(nodes(answers)).as("reads using user variables may go to replicas").doesNotContain("primary");
            assertThat(one(s, "SELECT CONCAT(COLLATION(@t), ' ', COLLATION(@d))"))
                    .isEqualTo(one(s, "/*FORCE_MASTER*/ SELECT CONCAT(COLLATION(@t), ' ', COLLATION(@d))"));
        }
    }

    @Test
    void aUserVariableATriggerAssignedOnThePrimaryIsReadAsThePrimaryHasIt() throws Exception {
        cluster.exec(cluster.primary(), "CREATE TABLE test.sluice_summed (val INT)",
                "CREATE TRIGGER test.sluice_sum BEFORE INSERT ON test.sluice_summed FOR EACH ROW SET @sum = @sum + NEW.val");
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SET @sum = 0");
            s.execute("INSERT INTO test.sluice_summed VALUES (10), (20), (30)");
            assertThat(reads(s, "SELECT @sum")).extracting(Answer::value).containsOnly("60");
            assertThat(nodes(reads(s, "SELECT COUNT(*), @@server_id FROM test.sluice_summed")))
                    .as("reads without user variables still split").doesNotContain("primary");
        } finally {
            cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.sluice_summed");
        }
    }

    @Test
    void aSessionVariableAStoredFunctionSetOnThePrimaryIsReadAsThePrimaryHasIt() throws Exception {
        cluster.exec(cluster.primary(), "CREATE OR REPLACE FUNCTION test.sluice_sets_sort(i INT) RETURNS INT "
                + "NO SQL BEGIN SET @@sort_buffer_size = i; RETURN i + 1; END");
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SET @@sort_buffer_size = 400000");
            assertThat(reads(s, "SELECT @@sort_buffer_size")).extracting(Answer::value).containsOnly("400000");
            try (ResultSet rs = s.executeQuery("SELECT test.sluice_sets_sort(400001)")) {
                rs.next();
            }
            assertThat(reads(s, "SELECT @@sort_buffer_size")).extracting(Answer::value).containsOnly("400001");
        } finally {
            cluster.exec(cluster.primary(), "DROP FUNCTION IF EXISTS test.sluice_sets_sort");
        }
    }

    @Test
    void aSchemaWithACyrillicNameIsUsedOnABackendOpenedAfterSetCharacterSet() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, null, READ_TIMEOUT)) {
            c.query("SET CHARACTER SET koi8r");
            c.query("USE `" + CYRILLIC_SCHEMA + "`", KOI8R);
            String expected = HexFormat.of().formatHex(CYRILLIC_SCHEMA.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            Set<String> servers = new HashSet<>();
            for (int i = 0; i < READS; i++) {
                List<String> row = c.query("SELECT LOWER(HEX(CONVERT(DATABASE() USING utf8mb4))), @@server_id").get(0);
                assertThat(row.get(0)).as("the schema on server " + row.get(1)).isEqualTo(expected);
                servers.add(row.get(1));
            }
            assertThat(servers).as("replicas opened after the USE").hasSizeGreaterThan(1);
        }
    }

    @Test
    void aTemporaryTableWithACyrillicNameIsTheSessionsOwnUnderKoi8r() throws Exception {
        String table = "МояТаблица";
        try (RawMysqlClient c = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", READ_TIMEOUT, KOI8R_GENERAL_CI)) {
            c.query("CREATE TEMPORARY TABLE `" + table + "` (`поле` VARCHAR(20) NOT NULL)", KOI8R);
            c.query("INSERT INTO `" + table + "` VALUES ('привет')", KOI8R);
            List<List<String>> rows = c.query("SELECT COUNT(*) FROM `" + table + "`", KOI8R);
            assertThat(rows).containsExactly(List.of("1"));
        }
    }

    @Test
    void aReplayedCommandAReplicaRefusesLeavesItOutAndTheClientSeesNoError() throws Exception {
        // A schema only the primary has: USE succeeds there, and fails on every replica.
        cluster.rootQuery(cluster.primary(), "SET sql_log_bin = 0; CREATE DATABASE " + PRIMARY_ONLY_SCHEMA);
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("USE " + PRIMARY_ONLY_SCHEMA);
            List<Answer> answers = reads(s, "SELECT DATABASE(), @@server_id");
            assertThat(answers).extracting(Answer::value).containsOnly(PRIMARY_ONLY_SCHEMA);
            assertThat(nodes(answers)).as("no replica has that schema").containsOnly("primary");
        } finally {
            cluster.rootQuery(cluster.primary(), "SET sql_log_bin = 0; DROP DATABASE " + PRIMARY_ONLY_SCHEMA);
        }
    }

    private record Answer(String value, String node) {
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
    }

    /** {@value #READS} answers of a query selecting a value and, if asked, {@code @@server_id}. */
    private static List<Answer> reads(Statement s, String sql) throws SQLException {
        List<Answer> out = new java.util.ArrayList<>();
        for (int i = 0; i < READS; i++) {
            try (ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                String node = rs.getMetaData().getColumnCount() > 1 ? nodeOf(rs.getLong(2)) : "?";
                out.add(new Answer(rs.getString(1), node));
            }
        }
        return out;
    }

    private static Set<String> nodes(List<Answer> answers) {
        Set<String> out = new HashSet<>();
        answers.forEach(a -> out.add(a.node()));
        return out;
    }

    private static String nodeOf(long serverId) {
        for (SandboxNode n : cluster.nodes()) {
            if (n.serverId() == serverId) {
                return n.name();
            }
        }
        return "server " + serverId;
    }

    private static String one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
