package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.server.tls.ClientTls;
import dev.sluice.server.tls.Fingerprint;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS between clients and Sluice: the {@code mariadb} CLI, MySQL Connector/J and MariaDB
 * Connector/J connect and query over TLS. That the <em>client</em> link is TLS (and not only
 * Sluice's link to the backend, which {@code Ssl_cipher} would show) is proven by certificate
 * verification: verifying against the system's CAs fails on Sluice's self-signed certificate, and
 * verifying against that very certificate succeeds. An endpoint with {@code require-tls} refuses
 * clients without TLS.
 */
class ClientTlsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String SECURE_HOST = "127.0.0.2";

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            limits: {handshake-timeout: 20s}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
              - {name: secure, listen: %s:0, mode: read-write, require-tls: true}
            """.formatted(SECURE_HOST));
    private static Path certificatePem;
    private static ClientTls tls;

    @TempDir
    static Path work;
    private static Path trustStore;

    @BeforeAll
    static void trustSluicesCertificate() throws Exception {
        tls = sluice.sluice().server().runtime().clientSecurity().tls().orElseThrow();
        certificatePem = tls.certificatePem().orElseThrow();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("sluice", tls.certificate());
        trustStore = work.resolve("sluice-trust.p12");
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            ks.store(out, "changeit".toCharArray());
        }
    }

    private static int port() {
        return sluice.port("rw");
    }

    // ---- the mariadb CLI ----

    private record Cli(int exit, String out) {
    }

    private static Cli mariadb(String... options) throws Exception {
        return mariadbAt("127.0.0.1", port(), options);
    }

    private static Cli mariadbAt(String host, int port, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("mariadb", "--no-defaults", "-h", host, "-P",
                Integer.toString(port), "-u", SandboxCluster.APP_USER, "-p" + SandboxCluster.APP_PASSWORD,
                "--connect-timeout=30", "-N", "-B", "test"));
        cmd.addAll(List.of(options));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return new Cli(p.exitValue(), out);
    }

    @Test
    void mariadbCliWithSslQueriesAndTheLinkIsTlsWithSluicesCertificate() throws Exception {
        Cli plain = mariadb("--ssl", "-e", "SELECT 6 * 7");
        assertThat(plain.exit()).as(plain.out()).isZero();
        assertThat(plain.out()).isEqualTo("42");
        // Verified against the system CAs: Sluice's self-signed certificate is refused — so TLS is in use.
        Cli verified = mariadb("--ssl", "--ssl-verify-server-cert", "-e", "SELECT 1");
        assertThat(verified.exit()).as(verified.out()).isNotZero();
        assertThat(verified.out()).containsIgnoringCase("certificate");
        // Verified against Sluice's own certificate (host 127.0.0.1 is in it): accepted.
        Cli pinned = mariadb("--ssl-ca=" + certificatePem, "--ssl-verify-server-cert", "-e", "SELECT 6 * 7");
        assertThat(pinned.exit()).as(pinned.out()).isZero();
        assertThat(pinned.out()).isEqualTo("42");
    }

    // ---- MySQL Connector/J ----

    private static String mysqlUrl(String host, int port, String options) {
        return "jdbc:mysql://" + host + ":" + port + "/test?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + "&connectTimeout=30000&socketTimeout=60000&" + options;
    }

    @Test
    void mysqlConnectorWithSslModeRequiredQueriesOverTls() throws Exception {
        try (Connection c = DriverManager.getConnection(mysqlUrl("127.0.0.1", port(), "sslMode=REQUIRED"))) {
            assertThat(roundTrip(c)).isEqualTo("over tls");
        }
        String pinned = "sslMode=VERIFY_IDENTITY&trustCertificateKeyStoreUrl=" + trustStore.toUri()
                + "&trustCertificateKeyStoreType=PKCS12&trustCertificateKeyStorePassword=changeit";
        try (Connection c = DriverManager.getConnection(mysqlUrl("127.0.0.1", port(), pinned))) {
            assertThat(value(c, "SELECT 6 * 7")).isEqualTo("42");
        }
        SQLException unverifiable = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                mysqlUrl("127.0.0.1", port(), "sslMode=VERIFY_CA")).close());
        assertThat((Object) unverifiable).as("a self-signed certificate is not trusted by the JDK's CAs").isNotNull();
    }

    // ---- MariaDB Connector/J ----

    private static String mariadbUrl(String host, int port, String options) {
        return "jdbc:mariadb://" + host + ":" + port + "/test?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + "&connectTimeout=30000&socketTimeout=60000&" + options;
    }

    @Test
    void mariadbConnectorWithSslModeTrustQueriesOverTls() throws Exception {
        try (Connection c = DriverManager.getConnection(mariadbUrl("127.0.0.1", port(), "sslMode=trust"))) {
            assertThat(roundTrip(c)).isEqualTo("over tls");
            // A result of several MB, through TLS on both sides.
            assertThat(value(c, "SELECT LENGTH(REPEAT('x', 4194304))")).isEqualTo("4194304");
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT REPEAT('y', 4194304)")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).hasSize(4 << 20).matches("y+");
            }
        }
        try (Connection c = DriverManager.getConnection(mariadbUrl("127.0.0.1", port(),
                "sslMode=verify-full&serverSslCert=" + certificatePem))) {
            assertThat(value(c, "SELECT 6 * 7")).isEqualTo("42");
        }
        SQLException unverifiable = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                mariadbUrl("127.0.0.1", port(), "sslMode=verify-full")).close());
        assertThat((Object) unverifiable).isNotNull();
    }

    // ---- require-tls ----

    @Test
    void anEndpointThatRequiresTlsRefusesClientsWithoutIt() throws Exception {
        int secure = sluice.port("secure");
        SQLException refused = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                mariadbUrl(SECURE_HOST, secure, "sslMode=disable")).close());
        assertThat(refused.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(refused.getSQLState()).isEqualTo("28000");
        assertThat(refused.getMessage()).contains("requires TLS");
        SQLException refusedMysql = catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(
                mysqlUrl(SECURE_HOST, secure, "sslMode=DISABLED")).close());
        assertThat(refusedMysql.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        try (Connection c = DriverManager.getConnection(mariadbUrl(SECURE_HOST, secure, "sslMode=trust"))) {
            assertThat(value(c, "SELECT 6 * 7")).isEqualTo("42");
        }
        try (Connection c = DriverManager.getConnection(mysqlUrl(SECURE_HOST, secure, "sslMode=REQUIRED"))) {
            assertThat(value(c, "SELECT 6 * 7")).isEqualTo("42");
        }
        // The CLI too: refused in clear, served with --ssl — so --ssl does put TLS on the client link.
        Cli clear = mariadbAt(SECURE_HOST, secure, "--skip-ssl", "-e", "SELECT 1");
        assertThat(clear.exit()).as(clear.out()).isNotZero();
        assertThat(clear.out()).contains("requires TLS");
        Cli tlsCli = mariadbAt(SECURE_HOST, secure, "--ssl", "-e", "SELECT 6 * 7");
        assertThat(tlsCli.exit()).as(tlsCli.out()).isZero();
        assertThat(tlsCli.out()).isEqualTo("42");
    }

    // ---- the SSLRequest's sharp edge ----

    @Test
    void anSslRequestAndTheClientHelloInOneTcpWriteStillLogIn() throws Exception {
        for (int i = 0; i < 20; i++) {
            try (EngineClient c = EngineClient.loginCoalesced(port(), SandboxCluster.APP_USER,
                    SandboxCluster.APP_PASSWORD, TIMEOUT)) {
                assertThat(Fingerprint.sha256(c.serverCertificate())).isEqualTo(tls.fingerprint());
                assertThat(c.queryFirstValue("SELECT 6 * 7")).isEqualTo("42");
            }
        }
    }

    @Test
    void garbageInsteadOfAClientHelloClosesOnlyThatConnection() throws Exception {
        try (var c = dev.sluice.it.support.RawMysqlClient.open(port(), TIMEOUT)) {
            c.readGreeting();
            byte[] sslRequest = new byte[32];
            sslRequest[0] = (byte) 0x00;
            sslRequest[1] = (byte) 0x0A; // CLIENT_SSL (0x800) | CLIENT_PROTOCOL_41 (0x200)
            c.writePacket(1, sslRequest);
            c.writeRaw("this is not a TLS ClientHello, not at all".getBytes(StandardCharsets.US_ASCII));
            assertThat(c.awaitClosed()).isTrue();
        }
    }

    private static String roundTrip(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS it_tls_round_trip (id INT PRIMARY KEY, v VARCHAR(20))");
            s.execute("REPLACE INTO it_tls_round_trip VALUES (1, 'over tls')");
            try (ResultSet rs = s.executeQuery("SELECT v FROM it_tls_round_trip WHERE id = 1 FOR UPDATE")) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static String value(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
