package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.mysql.cj.jdbc.JdbcConnection;
import dev.sluice.it.support.SandboxCluster;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Accounts are the primary's (docs/SECURITY.md): one created, changed or dropped — through Sluice
 * or directly on the primary — counts for the very next login or COM_CHANGE_USER, not for one a
 * moment later. Accounts are created one after the other and used at once, as a provisioning
 * script or a test suite does, so every login after the first comes within a second of Sluice's
 * previous look at the accounts. Each endpoint kind is tried: without a pool the backend checks
 * the login again, with a session pool Sluice's own check is all there is.
 */
class AccountChangesTest {
    private static final String PREFIX = "it_acct_";
    private static final String HOST = "127.0.0.1";
    private static final int ONE_AFTER_ANOTHER = 4;
    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final int CLI_TIMEOUT_SECONDS = 30;
    private static final List<String> created = new ArrayList<>();
    private static SandboxCluster cluster;
    private static GuardedSluice sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = GuardedSluice.start("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:0, mode: read-write}
                  - {name: pooled, listen: 127.0.0.1:0, mode: read-write, connection-pool: session}
                """);
    }

    @AfterEach
    void bystanderUnaffected() {
        sluice.assertBystanderUnaffected();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (sluice != null) {
                sluice.close();
            }
        } finally {
            for (String user : created) {
                cluster.exec(cluster.primary(), "DROP USER IF EXISTS '" + user + "'@'" + HOST + "'");
            }
            cluster.waitForReplicasCaughtUp(CATCH_UP);
        }
    }

    /** A new account name, dropped after the class. */
    private static String newAccount(String what) {
        String user = PREFIX + what;
        created.add(user);
        return user;
    }

    /** Runs account statements through Sluice as the sandbox's application user. */
    private static void throughSluice(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(sluice.sluice().mariadbUrl("rw", ""));
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static String url(String driver, String endpoint, String user, String password) {
        return "jdbc:" + driver + "://127.0.0.1:" + sluice.port(endpoint) + "/?user=" + user + "&password=" + password
                + "&connectTimeout=30000&socketTimeout=60000"
                + (driver.equals("mysql") ? "&sslMode=DISABLED&allowPublicKeyRetrieval=true" : "");
    }

    /** Logs in through the endpoint and answers CURRENT_USER() from the primary. */
    private static String currentUser(String endpoint, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("mariadb", endpoint, user, password));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("/*FORCE_MASTER*/ SELECT CURRENT_USER()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The refusal of a login: the connection itself must fail, not a statement after it. */
    private static SQLException refusal(String endpoint, String user, String password) {
        return catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                url("mariadb", endpoint, user, password)).close());
    }

    @ParameterizedTest
    @ValueSource(strings = {"rw", "pooled"})
    void accountsCreatedThroughSluiceLogInAtOnce(String endpoint) throws Exception {
        for (int i = 0; i < ONE_AFTER_ANOTHER; i++) {
            String user = newAccount("new_" + endpoint + "_" + i);
            throughSluice("CREATE USER '" + user + "'@'" + HOST + "' IDENTIFIED BY 'pw-" + i + "'");
            assertThat(currentUser(endpoint, user, "pw-" + i)).as("first login of account %d", i)
                    .isEqualTo(user + "@" + HOST);
        }
    }

    @Test
    void accountsCreatedDirectlyOnThePrimaryLogInAtOnceWithTheMariadbCli() throws Exception {
        for (int i = 0; i < ONE_AFTER_ANOTHER; i++) {
            String user = newAccount("cli_" + i);
            cluster.exec(cluster.primary(), "CREATE USER '" + user + "'@'" + HOST + "' IDENTIFIED BY 'cli-pw-" + i + "'");
            assertThat(cli(user, "cli-pw-" + i, "SELECT CURRENT_USER()")).as("first login of account %d", i)
                    .isEqualTo("exit 0\n" + user + "@" + HOST + "\n");
        }
    }

    @Test
    void changeUserToAnAccountCreatedAMomentAgoWorks() throws Exception {
        try (Connection c = DriverManager.getConnection(url("mysql", "rw", SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD)); Statement s = c.createStatement()) {
            for (int i = 0; i < ONE_AFTER_ANOTHER; i++) {
                String user = newAccount("change_" + i);
                s.execute("CREATE USER '" + user + "'@'" + HOST + "' IDENTIFIED BY 'change-pw-" + i + "'");
                ((JdbcConnection) c).changeUser(user, "change-pw-" + i);
                try (Statement as = c.createStatement();
                        ResultSet rs = as.executeQuery("/*FORCE_MASTER*/ SELECT CURRENT_USER()")) {
                    rs.next();
                    assertThat(rs.getString(1)).as("COM_CHANGE_USER %d", i).isEqualTo(user + "@" + HOST);
                }
                ((JdbcConnection) c).changeUser(SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rw", "pooled"})
    void aChangedPasswordCountsForTheNextLogin(String endpoint) throws Exception {
        String user = newAccount("pw_" + endpoint);
        throughSluice("CREATE USER '" + user + "'@'" + HOST + "' IDENTIFIED BY 'old-pw'");
        assertThat(currentUser(endpoint, user, "old-pw")).isEqualTo(user + "@" + HOST);
        throughSluice("ALTER USER '" + user + "'@'" + HOST + "' IDENTIFIED BY 'new-pw'");
        assertThat(refusal(endpoint, user, "old-pw").getErrorCode()).as("old password after ALTER USER").isEqualTo(1045);
        assertThat(currentUser(endpoint, user, "new-pw")).as("new password after ALTER USER").isEqualTo(user + "@" + HOST);
        cluster.exec(cluster.primary(), "SET PASSWORD FOR '" + user + "'@'" + HOST + "' = PASSWORD('newer-pw')");
        assertThat(currentUser(endpoint, user, "newer-pw")).as("new password after SET PASSWORD on the primary")
                .isEqualTo(user + "@" + HOST);
        assertThat(refusal(endpoint, user, "new-pw").getErrorCode()).as("old password after SET PASSWORD").isEqualTo(1045);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rw", "pooled"})
    void aDroppedAccountIsRefusedAtTheNextLogin(String endpoint) throws Exception {
        String user = newAccount("drop_" + endpoint);
        throughSluice("CREATE USER '" + user + "'@'" + HOST + "' IDENTIFIED BY 'drop-pw'");
        assertThat(currentUser(endpoint, user, "drop-pw")).isEqualTo(user + "@" + HOST);
        throughSluice("DROP USER '" + user + "'@'" + HOST + "'");
        SQLException refused = refusal(endpoint, user, "drop-pw");
        assertThat((Throwable) refused).as("login after DROP USER").isNotNull();
        assertThat(refused.getErrorCode()).isEqualTo(1045);
        assertThat(refused.getMessage()).contains("Access denied for user '" + user + "'@'" + HOST + "'");
    }

    /** The {@code mariadb} CLI through the {@code rw} endpoint; its exit code and output. */
    private static String cli(String user, String password, String sql) throws Exception {
        Path out = Files.createTempFile("it-acct-cli", ".out");
        try {
            Process p = new ProcessBuilder(List.of("mariadb", "-h" + HOST, "-P" + sluice.port("rw"), "-u" + user,
                    "-p" + password, "--batch", "--skip-column-names", "--skip-ssl", "--connect-timeout=5",
                    "-e", sql))
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            boolean finished = p.waitFor(CLI_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!finished) {
                p.destroyForcibly();
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(finished).as("the mariadb CLI finished; output so far:\n" + text).isTrue();
            return "exit " + p.exitValue() + "\n" + text;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
