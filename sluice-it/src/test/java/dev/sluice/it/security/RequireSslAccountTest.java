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
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An account created {@code REQUIRE SSL}: refused without TLS, with the server's own error, and
 * working with TLS — which takes TLS on Sluice's links to the backends too (the sandbox's nodes
 * offer it, and nodes default to {@code tls: preferred}); the backend checks the requirement on its
 * side as well, so a read on a replica proves that link.
 */
class RequireSslAccountTest {
    private static final String USER = "it_require_ssl";
    private static final String PASSWORD = "it-require-ssl-pw";
    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final int READS = 12;

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """)
            .beforeStart(cluster -> {
                cluster.exec(cluster.primary(), "DROP USER IF EXISTS '" + USER + "'@'127.0.0.1'",
                        "CREATE USER '" + USER + "'@'127.0.0.1' IDENTIFIED BY '" + PASSWORD + "' REQUIRE SSL");
                cluster.waitForReplicasCaughtUp(CATCH_UP);
            })
            .afterStop(cluster -> cluster.exec(cluster.primary(), "DROP USER IF EXISTS '" + USER + "'@'127.0.0.1'"));

    private static String url(String driver, int port, String ssl) {
        return "jdbc:" + driver + "://127.0.0.1:" + port + "/?user=" + USER + "&password=" + PASSWORD
                + "&connectTimeout=30000&socketTimeout=60000&" + ssl;
    }

    @Test
    void withoutTlsTheLoginIsRefusedWithTheServersError() {
        SQLException direct = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                url("mariadb", sluice.cluster().primary().port(), "sslMode=disable")).close());
        SQLException through = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                url("mariadb", sluice.port("rw"), "sslMode=disable")).close());
        assertThat(direct.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(through.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(through.getSQLState()).isEqualTo(direct.getSQLState()).isEqualTo("28000");
        assertThat(through.getMessage()).contains("Access denied for user '" + USER + "'@'127.0.0.1' (using password: YES)");
        SQLException mysql = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                url("mysql", sluice.port("rw"), "sslMode=DISABLED")).close());
        assertThat(mysql.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
    }

    @Test
    void withTlsItWorksOnThePrimaryAndOnTheReplicas() throws Exception {
        for (String options : new String[] {"mariadb|sslMode=trust", "mysql|sslMode=REQUIRED"}) {
            String[] o = options.split("\\|");
            try (Connection c = DriverManager.getConnection(url(o[0], sluice.port("rw"), o[1]));
                    Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo(USER + "@127.0.0.1");
                }
                Set<Long> servers = new HashSet<>();
                for (int i = 0; i < READS; i++) {
                    try (ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                        rs.next();
                        servers.add(rs.getLong(1));
                    }
                }
                assertThat(servers).as("reads reach replicas, logged in over TLS").anyMatch(id -> id != 1);
            }
        }
    }

    @Test
    void sluicesOwnLinkToTheBackendIsTls() throws Exception {
        // Ssl_cipher, read through Sluice, describes Sluice's connection to the backend.
        try (Connection c = DriverManager.getConnection(sluice.sluice().mariadbUrl("rw", ""));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(2)).isNotBlank();
        }
    }
}
