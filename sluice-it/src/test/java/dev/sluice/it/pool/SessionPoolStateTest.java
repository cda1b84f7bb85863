package dev.sluice.it.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.it.admin.PrometheusText;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.PrimaryGeneralLog;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.protocol.response.ErrorCodes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * BEHAVIOUR §7, session pool: what one client leaves on a backend connection never reaches the next,
 * while a connection that carries nothing but the SETs the next client makes too is handed on as
 * it is, and those SETs are answered without a backend (the short-connection speed-up).
 *
 * <p>Reads on the primary (the replicas' weight is 0) and one pooled connection per node (one I/O
 * thread, {@code pool-max-connections: 1}), so that consecutive clients provably share it: each
 * case checks that both saw the same backend thread id ({@code @@pseudo_thread_id}).
 */
class SessionPoolStateTest {
    private static final String TABLE = "test.session_pool_state";
    /** A database in a character set no server default uses, so that the session's copy of it shows. */
    private static final String KOI8R_DATABASE = "session_pool_koi8r";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
                "DROP DATABASE IF EXISTS " + KOI8R_DATABASE,
                "CREATE DATABASE " + KOI8R_DATABASE + " CHARACTER SET koi8r");
        StringBuilder weights = new StringBuilder("{" + cluster.primary().name() + ": 100");
        cluster.replicas().forEach(r -> weights.append(", ").append(r.name()).append(": 0"));
        sluice = SluiceHarness.fromYaml(cluster, SluiceHarness.nodesYaml(cluster) + """
                limits: {io-threads: 1}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:0, mode: read-write, connection-pool: session,
                     pool-max-connections: 1, weights: %s}}
                """.formatted(weights));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE, "DROP DATABASE IF EXISTS " + KOI8R_DATABASE);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    private static Connection client() throws SQLException {
        return DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static long connectionIdOf(Connection c) throws SQLException {
        return Long.parseLong(one(c, "SELECT @@pseudo_thread_id"));
    }

    /** A client that connects, reads its connection id, and leaves: the driver's connect-time SET and one read. */
    private static long plainClient() throws SQLException {
        try (Connection c = client()) {
            return connectionIdOf(c);
        }
    }

    @Test
    void aConnectionThatOnlyReadAndSetIsHandedOnAsItIsAndTheDriversSetNeedsNoBackend() throws Exception {
        long warm = plainClient();
        plainClient(); // the second one finds the connection (and the driver's SET's answer) waiting
        try (PrimaryGeneralLog log = PrimaryGeneralLog.start(cluster)) {
            for (int i = 0; i < 5; i++) {
                assertThat(plainClient()).as("the pooled connection").isEqualTo(warm);
            }
            List<PrimaryGeneralLog.Entry> onIt = log.entries().stream().filter(e -> e.threadId() == warm).toList();
            // No reset, no replayed SET, no login: the five clients' reads are all the primary saw.
            assertThat(onIt).extracting(PrimaryGeneralLog.Entry::argument)
                    .containsExactly(Stream.generate(() -> "SELECT @@pseudo_thread_id").limit(5).toArray(String[]::new));
        }
    }

    /** What a client leaves behind, and how the next client would see it if the connection were not reset. */
    static Stream<Arguments> traces() {
        return Stream.of(
                Arguments.of("a user variable", List.of("SET @secret = 42"), "SELECT @secret", null),
                Arguments.of("a write's LAST_INSERT_ID", List.of("INSERT INTO " + TABLE + " (v) VALUES (1)"),
                        "SELECT LAST_INSERT_ID()", "0"),
                Arguments.of("warnings", List.of("SELECT 1/0"), "SHOW WARNINGS", null),
                Arguments.of("a session variable the next client did not set", List.of("SET SESSION sql_mode = 'ANSI_QUOTES'",
                        "SELECT 1"), "SELECT @@sql_mode LIKE '%ANSI_QUOTES%'", "0"),
                Arguments.of("a transaction left open", List.of("SET autocommit = 0",
                        "INSERT INTO " + TABLE + " (v) VALUES (99)"), "SELECT COUNT(*) FROM " + TABLE + " WHERE v = 99",
                        "0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("traces")
    void whatAClientLeavesBehindIsResetBeforeTheNextClient(String what, List<String> leave, String probe,
            String fresh) throws Exception {
        plainClient();
        long first;
        try (Connection a = client(); Statement s = a.createStatement()) {
            for (String sql : leave) {
                s.execute(sql);
            }
            first = connectionIdOf(a);
        }
        try (Connection b = client()) {
            assertThat(one(b, probe)).as("the next client's view of %s", what).isEqualTo(fresh);
            assertThat(connectionIdOf(b)).as("the same backend connection, reset").isEqualTo(first);
        }
    }

    /**
     * COM_RESET_CONNECTION keeps the connection's database but puts {@code character_set_database}
     * back to the server's global value; a client's fresh connection to that database has the
     * database's own (LOAD DATA reads files in it, stored routines take it as their default).
     */
    @Test
    void aResetConnectionHasItsDatabasesCharacterSetAgain() throws Exception {
        String url = sluice.mariadbUrl("rw", "").replace("/test?", "/" + KOI8R_DATABASE + "?");
        long first;
        try (Connection a = DriverManager.getConnection(url); Statement s = a.createStatement()) {
            s.execute("SELECT 1/0"); // a warning: the connection is reset when A leaves
            first = connectionIdOf(a);
        }
        try (Connection b = DriverManager.getConnection(url)) {
            assertThat(one(b, "SELECT @@character_set_database")).isEqualTo("koi8r");
            assertThat(connectionIdOf(b)).as("the same backend connection, reset").isEqualTo(first);
        }
    }

    @Test
    void aClientWithoutADatabaseIsNeverGivenTheOneAnEarlierClientSelected() throws Exception {
        String withoutDatabase = sluice.mariadbUrl("rw", "").replace("/test?", "/?");
        long first;
        try (Connection a = DriverManager.getConnection(withoutDatabase); Statement s = a.createStatement()) {
            assertThat(one(a, "SELECT DATABASE()")).isNull();
            s.execute("USE test");
            first = connectionIdOf(a);
        }
        // A reset keeps the database: only a connection that never selected one can serve this client.
        try (Connection b = DriverManager.getConnection(withoutDatabase)) {
            assertThat(one(b, "SELECT DATABASE()")).isNull();
            assertThat(connectionIdOf(b)).as("another backend connection").isNotEqualTo(first);
        }
    }

    @Test
    void aTemporaryTableDoesNotOutliveItsClient() throws Exception {
        long first;
        try (Connection a = client(); Statement s = a.createStatement()) {
            s.execute("CREATE TEMPORARY TABLE pool_state_tmp (i INT)");
            first = connectionIdOf(a);
        }
        try (Connection b = client(); Statement s = b.createStatement()) {
            assertThatThrownBy(() -> s.executeQuery("SELECT * FROM pool_state_tmp"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1146));
            assertThat(connectionIdOf(b)).isEqualTo(first);
        }
    }

    @Test
    void aSetAnsweredWithoutABackendStillTakesEffect() throws Exception {
        String set = "SET SESSION sql_mode = 'ANSI_QUOTES,NO_ZERO_DATE'";
        try (Connection a = client(); Statement s = a.createStatement()) {
            s.execute(set); // a backend answers it: the answer is learned
        }
        plainClient(); // the connection goes to another state in between
        double before = localSessionCommands();
        try (Connection b = client(); Statement s = b.createStatement()) {
            s.execute(set);
            assertThat(localSessionCommands() - before).as("SETs answered without a backend").isEqualTo(2.0);
            // The connection B now gets was in another state: it is reset and given B's SETs.
            assertThat(one(b, "SELECT @@sql_mode")).isEqualTo("ANSI_QUOTES,NO_ZERO_DATE");
        }
        try (Connection c = client(); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("SET SESSION sql_mode = 'NO_SUCH_MODE_AT_ALL'"))
                    .as("a SET the server refuses is refused, never answered from memory")
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1231));
        }
    }

    @Test
    void aLoginIntoAMissingDatabaseIsRefusedEvenWhenThePoolKnowsTheAccount() throws Exception {
        plainClient();
        String url = sluice.mariadbUrl("rw", "").replace("/test?", "/no_such_database?");
        assertThatThrownBy(() -> DriverManager.getConnection(url).close())
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCodes.ER_BAD_DB_ERROR));
    }

    /** Session commands Sluice answered itself (the driver's connect-time SET among them). */
    private static double localSessionCommands() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + sluice.adminAddress().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        return PrometheusText.parse(r.body()).sum("sluice_statements_routed_total", "endpoint", "rw", "target", "local",
                "reason", "session-command");
    }
}
