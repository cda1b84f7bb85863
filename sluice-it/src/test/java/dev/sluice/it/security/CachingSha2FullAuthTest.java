package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.protocol.response.ErrorCodes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * caching_sha2_password's full authentication, client side: a {@code users:} entry with
 * {@code full-auth: true} makes Sluice switch the client to caching_sha2_password and ask for the
 * password itself (0x01 0x04) over TLS — as a MySQL 8 server with a cold cache does — and check it.
 * MySQL Connector/J and MariaDB Connector/J both do it; without TLS the fast path is used.
 */
class CachingSha2FullAuthTest {
    private static final String USER = "it_full_auth";
    private static final String PASSWORD = "it-full-auth-pw";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            users:
              - {user: %s, password: %s, full-auth: true}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """.formatted(USER, PASSWORD))
            .beforeStart(cluster -> {
                cluster.exec(cluster.primary(), "DROP USER IF EXISTS '" + USER + "'@'127.0.0.1'",
                        "CREATE USER '" + USER + "'@'127.0.0.1' IDENTIFIED BY '" + PASSWORD + "'");
                cluster.waitForReplicasCaughtUp(TIMEOUT);
            })
            .afterStop(cluster -> cluster.exec(cluster.primary(), "DROP USER IF EXISTS '" + USER + "'@'127.0.0.1'"));

    private static String url(String driver, String password, String options) {
        return "jdbc:" + driver + "://127.0.0.1:" + sluice.port("rw") + "/?user=" + USER + "&password=" + password
                + "&connectTimeout=30000&socketTimeout=60000&" + options;
    }

    private static String currentUser(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void onTheWireTheClientIsSwitchedAskedForItsPasswordAndLoggedIn() throws Exception {
        List<String> transcript = new ArrayList<>();
        try (EngineClient c = EngineClient.loginCoalesced(sluice.port("rw"), USER, PASSWORD, TIMEOUT, transcript)) {
            assertThat(c.queryFirstValue("SELECT CURRENT_USER()")).isEqualTo(USER + "@127.0.0.1");
        }
        assertThat(transcript).containsExactly("auth switch to caching_sha2_password", "full authentication", "OK");
    }

    @Test
    void mysqlConnectorLogsInWithFullAuthenticationOverTls() throws Exception {
        try (Connection c = DriverManager.getConnection(url("mysql", PASSWORD, "sslMode=REQUIRED"))) {
            assertThat(currentUser(c)).isEqualTo(USER + "@127.0.0.1");
        }
        SQLException wrong = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                url("mysql", "not-" + PASSWORD, "sslMode=REQUIRED")).close());
        assertThat(wrong.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(wrong.getMessage()).contains("Access denied for user '" + USER + "'@'127.0.0.1'");
    }

    @Test
    void mariadbConnectorLogsInWithFullAuthenticationOverTls() throws Exception {
        try (Connection c = DriverManager.getConnection(url("mariadb", PASSWORD, "sslMode=trust"))) {
            assertThat(currentUser(c)).isEqualTo(USER + "@127.0.0.1");
        }
    }

    @Test
    void withoutTlsTheFastPathIsUsed() throws Exception {
        try (Connection c = DriverManager.getConnection(url("mysql", PASSWORD, "sslMode=DISABLED"))) {
            assertThat(currentUser(c)).isEqualTo(USER + "@127.0.0.1");
        }
        try (Connection c = DriverManager.getConnection(url("mysql", PASSWORD,
                "sslMode=DISABLED&defaultAuthenticationPlugin=caching_sha2_password"))) {
            assertThat(currentUser(c)).isEqualTo(USER + "@127.0.0.1");
        }
    }
}
