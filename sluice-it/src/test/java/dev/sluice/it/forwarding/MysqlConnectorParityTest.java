package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import com.mysql.cj.jdbc.JdbcConnection;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MySQL Connector/J runs the same scenario directly against the primary and through Sluice, with
 * client-side and with server-side prepared statements, batches rewritten and not; the two
 * transcripts (results, metadata, update counts, generated keys, warnings, errors) must match.
 */
class MysqlConnectorParityTest {
    private static final String TABLE = "it_cj_items";
    private static final String COMMON = "allowMultiQueries=true&allowLoadLocalInfile=true&connectTimeout=5000"
            + "&socketTimeout=60000&characterEncoding=utf8&connectionTimeZone=UTC&forceConnectionTimeZoneToSession=false";
    private static SluiceHarness sluice;
    private static SandboxCluster cluster;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, ForwardingEndpoint.PRIMARY_ONLY);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE);
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    private static String directUrl(String options) {
        return "jdbc:mysql://127.0.0.1:" + cluster.primary().port() + "/test?user=" + SandboxCluster.APP_USER
                + "&password=" + SandboxCluster.APP_PASSWORD + "&sslMode=DISABLED&allowPublicKeyRetrieval=true&"
                + options;
    }

    private static String sluiceUrl(String options) {
        return sluice.mysqlUrl("rw", options);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "useServerPrepStmts=false&rewriteBatchedStatements=false",
            "useServerPrepStmts=false&rewriteBatchedStatements=true",
            "useServerPrepStmts=true&cachePrepStmts=true&rewriteBatchedStatements=false",
            "useServerPrepStmts=true&cachePrepStmts=true&rewriteBatchedStatements=true"})
    void theScenarioGivesTheSameTranscriptDirectAndThroughSluice(String options) throws Exception {
        Path file = dir.resolve("rows.csv");
        Files.writeString(file, "500,loaded one,1.25\n501,\\N,-7\n502,naïve ☃,0\n", StandardCharsets.UTF_8);

        Transcript direct = scenario(directUrl(COMMON + "&" + options), file);
        Transcript through = scenario(sluiceUrl(COMMON + "&" + options), file);

        assertThat(through.lines()).as("Connector/J transcript through Sluice vs direct").isEqualTo(direct.lines());
        assertThat(direct.toString()).doesNotContain("! SQLException 0 ").contains("row: | Long:1 | String:first");
    }

    private Transcript scenario(String url, Path file) throws Exception {
        Transcript t = new Transcript();
        try (Connection c = DriverManager.getConnection(url)) {
            t.step("ddl", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + TABLE);
                    s.execute("CREATE TABLE " + TABLE + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64) "
                            + "CHARACTER SET utf8mb4, amount DECIMAL(20,6), d DATE, ts DATETIME(3), flag BOOLEAN, "
                            + "data VARBINARY(255), note TEXT NULL, f DOUBLE, small TINYINT UNSIGNED)");
                }
            });
            t.step("insert with generated key", () -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE
                        + " (name, amount, d, ts, flag, data, note, f, small) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        Statement.RETURN_GENERATED_KEYS)) {
                    ps.setString(1, "first");
                    ps.setBigDecimal(2, new BigDecimal("12345678901234.123456"));
                    ps.setDate(3, Date.valueOf("2024-02-29"));
                    ps.setTimestamp(4, Timestamp.valueOf("2024-02-29 23:59:59.125"));
                    ps.setBoolean(5, true);
                    ps.setBytes(6, new byte[] {0, 1, (byte) 0xFE, (byte) 0xFF, 0x27, 0x5C});
                    ps.setNull(7, Types.VARCHAR);
                    ps.setDouble(8, -1.5e-7);
                    ps.setInt(9, 255);
                    t.add("update count: " + ps.executeUpdate());
                    t.generatedKeys(ps);
                }
            });
            t.step("prepared batch", () -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (name, amount, note) VALUES (?, ?, ?)",
                        Statement.RETURN_GENERATED_KEYS)) {
                    for (int i = 0; i < 6; i++) {
                        ps.setString(1, "batch-" + i + (i == 3 ? " 日本語 🎉" : ""));
                        ps.setBigDecimal(2, BigDecimal.valueOf(i * 1000 + 7, 3));
                        ps.setString(3, i % 2 == 0 ? null : "note " + "ü".repeat(i));
                        ps.addBatch();
                    }
                    t.updateCounts(ps.executeBatch());
                    t.generatedKeys(ps);
                }
            });
            t.step("statement batch", () -> {
                try (Statement s = c.createStatement()) {
                    s.addBatch("INSERT INTO " + TABLE + " (name) VALUES ('sb-1')");
                    s.addBatch("UPDATE " + TABLE + " SET small = 7 WHERE name LIKE 'batch-%'");
                    s.addBatch("INSERT INTO " + TABLE + " (name) VALUES ('sb-2'), ('sb-3')");
                    t.updateCounts(s.executeBatch());
                }
            });
            t.step("long data from streams, then clearParameters and again", () -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (name, data, note) VALUES (?, ?, ?)")) {
                    for (int round = 0; round < 2; round++) {
                        ps.setString(1, "stream-" + round);
                        ps.setBinaryStream(2, new java.io.ByteArrayInputStream(new byte[] {9, 8, 7, 0, (byte) round}));
                        ps.setCharacterStream(3, new java.io.StringReader("längerer Text " + "ß".repeat(300 * (round + 1))));
                        t.add("update count: " + ps.executeUpdate());
                        ps.clearParameters();
                    }
                }
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name, HEX(data), CHAR_LENGTH(note) "
                        + "FROM " + TABLE + " WHERE name LIKE 'stream-%' ORDER BY id")) {
                    t.resultSet(rs);
                }
            });
            t.step("select all", () -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + TABLE + " ORDER BY id")) {
                    t.resultSet(rs);
                }
            });
            t.step("prepared select with parameters", () -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT id, name, amount, ? AS p_str, ? AS p_dec, ? AS p_null, "
                        + "? AS p_date FROM " + TABLE + " WHERE id > ? AND name LIKE ? ORDER BY id")) {
                    for (int round = 0; round < 2; round++) {
                        ps.setString(1, "päräm " + round);
                        ps.setBigDecimal(2, new BigDecimal("-0.000001"));
                        ps.setNull(3, Types.INTEGER);
                        ps.setDate(4, Date.valueOf("1999-12-31"));
                        ps.setLong(5, round);
                        ps.setString(6, round == 0 ? "batch-%" : "%");
                        try (ResultSet rs = ps.executeQuery()) {
                            t.resultSet(rs);
                        }
                    }
                }
            });
            t.step("transaction: rollback then commit", () -> {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO " + TABLE + " (name) VALUES ('rolled back')");
                    c.rollback();
                    s.executeUpdate("INSERT INTO " + TABLE + " (name) VALUES ('committed')");
                    c.commit();
                } finally {
                    c.setAutoCommit(true);
                }
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name FROM " + TABLE
                        + " WHERE name IN ('rolled back', 'committed') ORDER BY id")) {
                    t.resultSet(rs);
                }
            });
            t.step("multi-statement", () -> {
                try (Statement s = c.createStatement()) {
                    boolean rs = s.execute("SELECT 1 AS one; UPDATE " + TABLE + " SET f = 2.5 WHERE name LIKE 'sb-%'; "
                            + "SELECT name, f FROM " + TABLE + " WHERE name LIKE 'sb-%' ORDER BY id; DO 1; "
                            + "SELECT 'last' AS l");
                    t.allResults(s, rs);
                }
            });
            t.step("load data local infile", () -> {
                try (Statement s = c.createStatement()) {
                    t.add("update count: " + s.executeUpdate("LOAD DATA LOCAL INFILE '" + file.toAbsolutePath()
                            + "' INTO TABLE " + TABLE + " FIELDS TERMINATED BY ',' (id, name, amount)"));
                    t.warnings(s.getWarnings());
                    try (ResultSet rs = s.executeQuery("SELECT id, name, amount FROM " + TABLE + " WHERE id >= 500 ORDER BY id")) {
                        t.resultSet(rs);
                    }
                }
            });
            t.step("warnings", () -> {
                try (Statement s = c.createStatement()) {
                    try (ResultSet rs = s.executeQuery("SELECT CAST('12abc' AS SIGNED), 1/0")) {
                        t.resultSet(rs);
                    }
                    t.warnings(s.getWarnings());
                    try (ResultSet rs = s.executeQuery("SHOW WARNINGS")) {
                        t.resultSet(rs);
                    }
                }
            });
            t.step("error", () -> {
                try (Statement s = c.createStatement()) {
                    s.executeQuery("SELECT * FROM it_cj_no_such_table");
                }
            });
            t.step("still usable after an error", () -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(amount) FROM " + TABLE)) {
                    t.resultSet(rs);
                }
            });
            t.step("isValid (ping)", () -> t.add("valid: " + c.isValid(5)));
            t.step("resetServerState", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("SET @it_user_var = 42");
                    ((JdbcConnection) c).resetServerState();
                    try (ResultSet rs = s.executeQuery("SELECT @it_user_var, DATABASE()")) {
                        t.resultSet(rs);
                    }
                }
            });
            t.step("drop", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE " + TABLE);
                }
            });
        }
        return t;
    }

    /**
     * COM_CHANGE_USER: to the same user (session state starts over), then refused — the new user may
     * not use the current database — then with a wrong password. MariaDB keeps the old user when a
     * change is refused; Connector/J drops the connection after a wrong password.
     */
    @Test
    void changeUserGivesTheSameTranscriptDirectAndThroughSluice() throws Exception {
        String options = COMMON + "&useServerPrepStmts=false";
        Transcript direct = changeUserScenario(directUrl(options));
        Transcript through = changeUserScenario(sluiceUrl(options));
        assertThat(through.lines()).as("changeUser transcript through Sluice vs direct").isEqualTo(direct.lines());
        assertThat(direct.lines()).contains("row: | String:app@127.0.0.1 | String:test | NULL | Long:1");
    }

    private Transcript changeUserScenario(String url) throws Exception {
        Transcript t = new Transcript();
        try (Connection c = DriverManager.getConnection(url)) {
            t.step("ddl", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + TABLE);
                    s.execute("CREATE TABLE " + TABLE + " (id INT PRIMARY KEY)");
                    s.execute("INSERT INTO " + TABLE + " VALUES (1)");
                }
            });
            t.step("changeUser to the same user", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("SET @it_user_var = 'before change user'");
                }
                ((JdbcConnection) c).changeUser(SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CURRENT_USER(), DATABASE(), "
                        + "@it_user_var, (SELECT COUNT(*) FROM " + TABLE + ")")) {
                    t.resultSet(rs);
                }
            });
            t.step("changeUser refused (monitor may not use database test)", () ->
                    ((JdbcConnection) c).changeUser(SandboxCluster.MONITOR_USER, SandboxCluster.MONITOR_PASSWORD));
            t.step("after the refused changeUser: still the old user", () -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CURRENT_USER(), DATABASE(), "
                        + "(SELECT COUNT(*) FROM " + TABLE + ")")) {
                    t.resultSet(rs);
                }
            });
            t.step("drop", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE " + TABLE);
                }
            });
            t.step("changeUser with a wrong password", () ->
                    ((JdbcConnection) c).changeUser(SandboxCluster.APP_USER, "wrong-password"));
            t.step("after the wrong password (Connector/J drops the connection)", () -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CURRENT_USER(), DATABASE()")) {
                    t.resultSet(rs);
                }
            });
        }
        return t;
    }

    /** A server-side cursor (COM_STMT_EXECUTE with a cursor, then COM_STMT_FETCH of 7 rows at a time). */
    @Test
    void cursorFetchGivesTheSameRowsDirectAndThroughSluice() throws Exception {
        String options = COMMON + "&useServerPrepStmts=true&useCursorFetch=true&defaultFetchSize=7";
        Transcript direct = cursorScenario(directUrl(options));
        Transcript through = cursorScenario(sluiceUrl(options));
        assertThat(through.lines()).as("cursor fetch transcript through Sluice vs direct").isEqualTo(direct.lines());
        assertThat(direct.lines()).contains("rows: 100", "row: | Long:100 | String:" + "r100".repeat(5));
    }

    private Transcript cursorScenario(String url) throws Exception {
        Transcript t = new Transcript();
        try (Connection c = DriverManager.getConnection(url)) {
            t.step("cursor over 100 rows, another query in between", () -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT seq, REPEAT(CONCAT('r', seq), 5) AS txt "
                        + "FROM seq_1_to_100 WHERE seq > ? ORDER BY seq")) {
                    ps.setFetchSize(7);
                    ps.setInt(1, 0);
                    try (ResultSet rs = ps.executeQuery()) {
                        int n = 0;
                        while (rs.next()) {
                            n++;
                            t.add("row: | Long:" + rs.getLong(1) + " | String:" + rs.getString(2));
                            if (n == 10) {
                                // The cursor stays open on the server while another statement runs.
                                try (PreparedStatement other = c.prepareStatement("SELECT ? + 1")) {
                                    other.setInt(1, 41);
                                    try (ResultSet o = other.executeQuery()) {
                                        o.next();
                                        t.add("in between: " + o.getInt(1));
                                    }
                                }
                            }
                        }
                        t.add("rows: " + n);
                    }
                }
            });
            t.step("after the cursor", () -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 'ok'")) {
                    t.resultSet(rs);
                }
            });
        }
        return t;
    }
}
