package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * BEHAVIOUR §3 prepared statements (binary protocol) with server-side prepares in MySQL Connector/J
 * and MariaDB Connector/J: EXECUTE of a read runs on a replica, of a write on the primary, results
 * are the ones a direct connection gets, and closing statements leaves none behind on any backend
 * ({@code Prepared_stmt_count} back to where it was on every node). Also: long data goes where its
 * statement runs, cursor fetches stay with the replica that opened the cursor, and the rules of
 * BEHAVIOUR §3 (previous target, temporary tables, CALL pinning) hold for prepared statements too.
 */
class PreparedStatementsTest {
    private static final String DB = "it_routing_ps";
    private static final int CYCLES = 1_000;
    private static final String READ = "SELECT @@server_id, id, name, price, born, note FROM items WHERE id >= ? ORDER BY id";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;
    private static long primaryId;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        primaryId = cluster.serverIdOf(cluster.primary());
        cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB, "CREATE DATABASE " + DB,
                "CREATE TABLE " + DB + ".items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), "
                        + "born DATE, note MEDIUMTEXT, sid INT)",
                "INSERT INTO " + DB + ".items VALUES (1, 'one', 1.50, '2001-01-01', NULL, 0), "
                        + "(2, 'deux ☃', -2.25, '2002-02-02', 'note', 0), (3, '', 0, NULL, REPEAT('x', 300), 0)",
                "CREATE PROCEDURE " + DB + ".p_sid() SELECT @@server_id");
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

    private static String url(String driver, boolean throughSluice) {
        if (driver.equals("mysql")) {
            String options = "useServerPrepStmts=true&cachePrepStmts=false&connectionTimeZone=UTC"
                    + "&forceConnectionTimeZoneToSession=false";
            return throughSluice ? sluice.mysqlUrl("rw", options).replace("/test?", "/" + DB + "?")
                    : "jdbc:mysql://127.0.0.1:" + cluster.primary().port() + "/" + DB + "?user=" + SandboxCluster.APP_USER
                            + "&password=" + SandboxCluster.APP_PASSWORD + "&sslMode=DISABLED&" + options;
        }
        String options = "useServerPrepStmts=true&cachePrepStmts=false";
        return throughSluice ? sluice.mariadbUrl("rw", options).replace("/test?", "/" + DB + "?")
                : "jdbc:mariadb://127.0.0.1:" + cluster.primary().port() + "/" + DB + "?user=" + SandboxCluster.APP_USER
                        + "&password=" + SandboxCluster.APP_PASSWORD + "&" + options;
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void preparedReadsRunOnReplicasWithTheResultsOfADirectConnection(String driver) throws SQLException {
        List<String> direct;
        try (Connection c = DriverManager.getConnection(url(driver, false))) {
            direct = rowsOf(c, 1).get("primary");
        }
        assertThat(direct).hasSize(3);
        try (Connection c = DriverManager.getConnection(url(driver, true))) {
            Map<String, List<String>> byNode = new TreeMap<>();
            try (PreparedStatement p = c.prepareStatement(READ)) {
                for (int i = 0; i < 6; i++) {
                    p.setInt(1, 1);
                    byNode.putAll(rows(p));
                }
            }
            assertThat(byNode).as("nodes that ran the prepared read").containsOnlyKeys("ro1", "ro2", "ro3");
            byNode.forEach((node, rows) -> assertThat(rows).as("rows from " + node).isEqualTo(direct));
        }
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void preparedWritesRunOnThePrimaryAndPreparedReadsInATransactionToo(String driver) throws SQLException {
        int id = driver.equals("mysql") ? 100 : 200;
        try (Connection c = DriverManager.getConnection(url(driver, true))) {
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO items (id, name, price, born, note, sid) VALUES (?, ?, ?, ?, ?, @@server_id)")) {
                for (int i = 0; i < 3; i++) {
                    insert.setInt(1, id + i);
                    insert.setString(2, "ps " + driver);
                    insert.setBigDecimal(3, new BigDecimal("9.99"));
                    insert.setDate(4, Date.valueOf("2020-02-29"));
                    insert.setNull(5, Types.VARCHAR);
                    assertThat(insert.executeUpdate()).isEqualTo(1);
                }
            }
            assertThat(cluster.queryString(cluster.primary(), "SELECT GROUP_CONCAT(DISTINCT sid) FROM " + DB
                    + ".items WHERE id BETWEEN " + id + " AND " + (id + 2))).isEqualTo(Long.toString(primaryId));
            try (PreparedStatement update = c.prepareStatement("UPDATE items SET sid = @@server_id + ? WHERE id = ?")) {
                update.setInt(1, 1000);
                update.setInt(2, id);
                assertThat(update.executeUpdate()).isEqualTo(1);
            }
            assertThat(cluster.queryString(cluster.primary(), "SELECT sid FROM " + DB + ".items WHERE id = " + id))
                    .isEqualTo(Long.toString(primaryId + 1000));

            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement(READ)) {
                for (int i = 0; i < 3; i++) {
                    p.setInt(1, id);
                    assertThat(rows(p)).as("prepared read in a transaction").containsOnlyKeys("primary");
                }
            }
            c.commit();
            c.setAutoCommit(true);
            try (PreparedStatement delete = c.prepareStatement("DELETE FROM items WHERE id >= ?")) {
                delete.setInt(1, id);
                assertThat(delete.executeUpdate()).isEqualTo(3);
            }
        }
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void aThousandPrepareCloseCyclesLeaveNoStatementOnAnyBackend(String driver) throws SQLException {
        Map<String, Long> baseline = preparedStatementCounts();
        try (Connection c = DriverManager.getConnection(url(driver, true))) {
            List<PreparedStatement> open = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                PreparedStatement p = c.prepareStatement(READ);
                p.setInt(1, 1);
                rows(p);
                open.add(p);
            }
            // The measure can see statements held by Sluice's backends: three reads open on three replicas.
            Map<String, Long> held = preparedStatementCounts();
            long extra = held.values().stream().mapToLong(Long::longValue).sum()
                    - baseline.values().stream().mapToLong(Long::longValue).sum();
            assertThat(extra).as("statements held while open: " + baseline + " -> " + held).isGreaterThanOrEqualTo(3);
            for (PreparedStatement p : open) {
                p.close();
            }

            for (int i = 0; i < CYCLES; i++) {
                boolean write = i % 4 == 3;
                try (PreparedStatement p = c.prepareStatement(write
                        ? "UPDATE items SET sid = ? WHERE id = 1" : "SELECT @@server_id, name FROM items WHERE id = ?")) {
                    p.setInt(1, write ? i : 1 + i % 3);
                    if (write) {
                        p.executeUpdate();
                    } else {
                        try (ResultSet rs = p.executeQuery()) {
                            assertThat(rs.next()).isTrue();
                        }
                    }
                }
            }
            // COM_STMT_CLOSE has no answer: the last one may still be on its way when we look, so
            // wait a little; a statement left behind keeps the count up as long as the client stays.
            await("Prepared_stmt_count per node back to " + baseline + " after " + CYCLES + " cycles, client still there")
                    .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(preparedStatementCounts()).isEqualTo(baseline));
        }
        await("Prepared_stmt_count per node after the client left").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(preparedStatementCounts()).isEqualTo(baseline));
    }

    @Test
    void longDataGoesWhereItsStatementRuns() throws Exception {
        // MySQL Connector/J sends a stream parameter of a server-side prepared statement as
        // COM_STMT_SEND_LONG_DATA chunks before the EXECUTE, and COM_STMT_RESET after it.
        int size = 200_000;
        byte[] data = new byte[size];
        Arrays.fill(data, (byte) 'z');
        try (Connection c = DriverManager.getConnection(url("mysql", true) + "&blobSendChunkSize=65536")) {
            List<String> readers = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT @@server_id, LENGTH(?)")) {
                for (int i = 0; i < 3; i++) {
                    p.setBinaryStream(1, new ByteArrayInputStream(data), size);
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        readers.add(names.name(rs.getLong(1)));
                        assertThat(rs.getLong(2)).as("length of the long data seen by the read").isEqualTo(size);
                    }
                }
            }
            assertThat(readers).as("nodes that ran the read with long data").containsExactlyInAnyOrder("ro1", "ro2", "ro3");
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO items (id, name, note, sid) VALUES (300, 'long', ?, @@server_id)")) {
                p.setBinaryStream(1, new ByteArrayInputStream(data), size);
                assertThat(p.executeUpdate()).isEqualTo(1);
            }
            assertThat(cluster.queryString(cluster.primary(), "SELECT CONCAT(sid, '/', LENGTH(note)) FROM " + DB
                    + ".items WHERE id = 300")).isEqualTo(primaryId + "/" + size);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM items WHERE id = 300");
            }
        }
    }

    @Test
    void cursorFetchesStayWithTheReplicaThatOpenedTheCursor() throws Exception {
        // useCursorFetch: EXECUTE opens a server-side cursor, COM_STMT_FETCH asks for 3 rows at a time.
        try (Connection c = DriverManager.getConnection(url("mysql", true) + "&useCursorFetch=true");
                PreparedStatement a = c.prepareStatement("SELECT @@server_id, seq FROM seq_1_to_40 WHERE seq >= ?");
                PreparedStatement b = c.prepareStatement("SELECT @@server_id, seq FROM seq_1_to_40 WHERE seq >= ?")) {
            a.setFetchSize(3);
            b.setFetchSize(3);
            a.setInt(1, 1);
            b.setInt(1, 11);
            try (ResultSet ra = a.executeQuery(); ResultSet rb = b.executeQuery()) {
                List<Integer> seqA = new ArrayList<>();
                List<Integer> seqB = new ArrayList<>();
                Set<String> nodesA = new HashSet<>();
                Set<String> nodesB = new HashSet<>();
                boolean moreA = true;
                boolean moreB = true;
                while (moreA || moreB) { // interleaved: the two cursors' fetches alternate
                    if (moreA && (moreA = ra.next())) {
                        nodesA.add(names.name(ra.getLong(1)));
                        seqA.add(ra.getInt(2));
                    }
                    if (moreB && (moreB = rb.next())) {
                        nodesB.add(names.name(rb.getLong(1)));
                        seqB.add(rb.getInt(2));
                    }
                }
                assertThat(seqA).as("rows of cursor A").isEqualTo(IntStream.rangeClosed(1, 40).boxed().toList());
                assertThat(seqB).as("rows of cursor B").isEqualTo(IntStream.rangeClosed(11, 40).boxed().toList());
                assertThat(nodesA).as("nodes cursor A read from").hasSize(1).allMatch(n -> n.startsWith("ro"));
                assertThat(nodesB).as("nodes cursor B read from").hasSize(1).allMatch(n -> n.startsWith("ro"));
            }
        }
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void showWarningsAndFoundRowsFollowAPreparedReadToItsReplica(String driver) throws Exception {
        try (Connection c = DriverManager.getConnection(url(driver, true));
                PreparedStatement warn = c.prepareStatement("SELECT @@server_id, CAST(? AS SIGNED)");
                PreparedStatement calc = c.prepareStatement(
                        "SELECT SQL_CALC_FOUND_ROWS @@server_id FROM items WHERE id >= ? LIMIT 1");
                Statement s = c.createStatement()) {
            List<String> replicas = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                warn.setString(1, "not a number");
                String ranOn = rows(warn).keySet().iterator().next();
                replicas.add(ranOn);
                int warnings = 0;
                try (ResultSet rs = s.executeQuery("SHOW WARNINGS")) {
                    while (rs.next()) {
                        warnings++;
                        assertThat(rs.getInt("Code")).isEqualTo(1292);
                    }
                }
                assertThat(warnings).as("SHOW WARNINGS after a prepared read with a warning on " + ranOn).isEqualTo(1);

                calc.setInt(1, 1);
                String calcOn;
                try (ResultSet rs = calc.executeQuery()) {
                    rs.next();
                    calcOn = names.name(rs.getLong(1));
                }
                try (ResultSet rs = s.executeQuery("SELECT FOUND_ROWS(), @@server_id")) {
                    rs.next();
                    assertThat(names.name(rs.getLong(2))).as("where FOUND_ROWS() ran").isEqualTo(calcOn);
                    assertThat(rs.getLong(1)).as("FOUND_ROWS() after the prepared read on " + calcOn).isEqualTo(3);
                }
            }
            assertThat(replicas).allMatch(n -> n.startsWith("ro"));
        }
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void aTemporaryTableCreatedByAPreparedStatementKeepsItsReadsOnThePrimary(String driver) throws Exception {
        try (Connection c = DriverManager.getConnection(url(driver, true))) {
            try (PreparedStatement create = c.prepareStatement("CREATE TEMPORARY TABLE tmp_ps (n INT)")) {
                create.execute();
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO tmp_ps VALUES (?)")) {
                insert.setInt(1, 5);
                insert.executeUpdate();
            }
            for (int i = 0; i < 3; i++) {
                try (PreparedStatement read = c.prepareStatement("SELECT @@server_id, SUM(n) + ? FROM tmp_ps")) {
                    read.setInt(1, 0);
                    assertThat(rows(read)).as("prepared read of the temporary table").containsOnlyKeys("primary");
                }
                try (Statement s = c.createStatement()) {
                    assertThat(names.where(s, "SELECT @@server_id, SUM(n) FROM tmp_ps"))
                            .as("text read of the temporary table").isEqualTo("primary");
                }
            }
            try (PreparedStatement drop = c.prepareStatement("DROP TEMPORARY TABLE tmp_ps")) {
                drop.execute();
            }
        }
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void aPreparedCallRunsOnThePrimaryAndPinsTheSession(String driver) throws Exception {
        try (Connection c = DriverManager.getConnection(url(driver, true))) {
            try (PreparedStatement read = c.prepareStatement("SELECT @@server_id, ?")) {
                read.setInt(1, 1);
                assertThat(rows(read)).as("before the CALL").doesNotContainKey("primary");
            }
            try (CallableStatement call = c.prepareCall("{CALL p_sid()}")) {
                try (ResultSet rs = call.executeQuery()) {
                    rs.next();
                    assertThat(names.name(rs.getLong(1))).as("the procedure's SELECT @@server_id").isEqualTo("primary");
                }
            }
            for (int i = 0; i < 3; i++) {
                try (PreparedStatement read = c.prepareStatement("SELECT @@server_id, ?")) {
                    read.setInt(1, 1);
                    assertThat(rows(read)).as("after the CALL").containsOnlyKeys("primary");
                }
            }
        }
    }

    private static Map<String, Long> preparedStatementCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (SandboxNode n : cluster.nodes()) {
            counts.put(n.name(), Long.parseLong(cluster.queryString(n, "SELECT VARIABLE_VALUE FROM "
                    + "information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'PREPARED_STMT_COUNT'")));
        }
        return counts;
    }

    /** Rows of {@link #READ} from id {@code from}, without the server id, keyed by the node that answered. */
    private static Map<String, List<String>> rowsOf(Connection c, int from) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(READ)) {
            p.setInt(1, from);
            Map<String, List<String>> rows = rows(p);
            // A direct connection to the primary: name it so whatever the node.
            return Map.of("primary", rows.values().iterator().next());
        }
    }

    private static Map<String, List<String>> rows(PreparedStatement p) throws SQLException {
        String node = null;
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = p.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                String n = names.name(rs.getLong(1));
                assertThat(node == null || node.equals(n)).as("one node answers one execute").isTrue();
                node = n;
                StringBuilder b = new StringBuilder();
                for (int i = 2; i <= md.getColumnCount(); i++) {
                    b.append(md.getColumnLabel(i)).append(':').append(md.getColumnType(i)).append('=')
                            .append(rs.getString(i)).append(rs.wasNull() ? "(null)" : "").append(' ');
                }
                rows.add(b.toString());
            }
        }
        assertThat(node).as("the read returned rows").isNotNull();
        return Map.of(node, rows);
    }
}
