package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.response.ErrorCodes;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input during the login: wrong password, unknown user, malformed handshake responses, a
 * packet that never completes, a client that says nothing. Each gets an ERR packet and a closed
 * connection, promptly; a well-behaved session running alongside never notices.
 */
class LoginBadInputTest {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("limits: {handshake-timeout: 1s, max-packet-size: 1m}\n"
            + ForwardingEndpoint.SECTION);

    private static int port() {
        return sluice.port("rw");
    }

    // ---- wrong credentials: the same error as the server gives, with both drivers ----

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "mysql"})
    void aWrongPasswordGetsTheServersAccessDeniedError(String driver) {
        int primary = sluice.cluster().primary().port();
        SQLException direct = loginError(driver, primary, SandboxCluster.APP_USER, "wrong-password");
        SQLException through = loginError(driver, port(), SandboxCluster.APP_USER, "wrong-password");
        assertThat(direct.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(through.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(through.getSQLState()).isEqualTo(direct.getSQLState());
        assertThat(through.getMessage()).contains("Access denied for user 'app'@'127.0.0.1' (using password: YES)");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "mysql"})
    void anUnknownUserGetsTheServersAccessDeniedError(String driver) {
        SQLException direct = loginError(driver, sluice.cluster().primary().port(), "it_nobody", "whatever");
        SQLException through = loginError(driver, port(), "it_nobody", "whatever");
        assertThat(direct.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(through.getErrorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
        assertThat(through.getSQLState()).isEqualTo(direct.getSQLState());
        assertThat(through.getMessage()).contains("Access denied for user 'it_nobody'@'127.0.0.1' (using password: YES)");
    }

    private static SQLException loginError(String driver, int port, String user, String password) {
        String url = driver.equals("mariadb")
                ? "jdbc:mariadb://127.0.0.1:" + port + "/test?connectTimeout=5000&socketTimeout=10000"
                : "jdbc:mysql://127.0.0.1:" + port + "/test?sslMode=DISABLED&connectTimeout=5000&socketTimeout=10000";
        return catchThrowableOfType(SQLException.class, () -> DriverManager.getConnection(url, user, password).close());
    }

    @Test
    void aWrongPasswordOnTheWireIsErr1045WithSequenceTwoThenClose() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.open(port(), READ_TIMEOUT)) {
            c.readGreeting();
            c.sendLogin(SandboxCluster.APP_USER, "not-the-password", "test");
            RawPacket answer = c.readPacket();
            assertThat(answer.isErr()).as("answer " + answer).isTrue();
            assertThat(answer.sequenceId()).isEqualTo(2);
            assertThat(answer.err().errorCode()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
            assertThat(answer.err().sqlState()).isEqualTo("28000");
            assertThat(c.awaitClosed()).as("connection closed after the ERR").isTrue();
        }
    }

    @Test
    void aWrongPasswordWhileTheAccountsCannotBeReadAgainIsStillErr1045AtTheHandshakeTimeout() throws Exception {
        // The second read of the accounts (a refused login is checked again) hangs behind this lock
        // for longer than the 1 s handshake timeout: Sluice's own wait, which must not turn the
        // server's answer into a 1043.
        SandboxCluster cluster = sluice.cluster();
        Thread lock = new Thread(() -> cluster.rootQuery(cluster.primary(),
                "LOCK TABLES mysql.global_priv WRITE; SELECT SLEEP(4); UNLOCK TABLES"));
        lock.start();
        try {
            await("the accounts table is locked").atMost(Duration.ofSeconds(10)).until(() -> cluster.rootQuery(
                    cluster.primary(), "SELECT COUNT(*) FROM information_schema.processlist "
                            + "WHERE info = 'SELECT SLEEP(4)'").equals("1"));
            try (RawMysqlClient c = RawMysqlClient.open(port(), READ_TIMEOUT)) {
                c.readGreeting();
                c.sendLogin(SandboxCluster.APP_USER, "not-the-password", "test");
                RawPacket answer = c.readPacket();
                assertThat(answer.isErr()).as("answer " + answer).isTrue();
                assertThat(answer.err().errorCode()).as(answer.err().message()).isEqualTo(ErrorCodes.ER_ACCESS_DENIED_ERROR);
                assertThat(c.awaitClosed()).as("connection closed after the ERR").isTrue();
            }
        } finally {
            lock.join();
        }
    }

    // ---- malformed handshake responses ----

    private static Map<String, byte[]> malformedResponses() {
        Random random = new Random(42);
        Map<String, byte[]> m = new LinkedHashMap<>();
        byte[] noProtocol41 = new byte[64];
        random.nextBytes(noProtocol41);
        noProtocol41[1] &= ~0x02;
        m.put("random bytes", noProtocol41);
        byte[] noNul = new byte[64];
        random.nextBytes(noNul);
        for (int i = 0; i < noNul.length; i++) {
            noNul[i] = noNul[i] == 0 ? 1 : noNul[i];
        }
        noNul[1] |= 0x02;
        m.put("random bytes with CLIENT_PROTOCOL_41, no NUL", noNul);
        long caps = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SECURE_CONNECTION | Capabilities.CLIENT_PLUGIN_AUTH
                | Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
        m.put("auth response cut short", concat(fixedPart(caps), "app\0".getBytes(StandardCharsets.US_ASCII),
                new byte[] {20, 'a', 'b', 'c'}));
        m.put("auth response of 2^63 bytes", concat(fixedPart(caps), "app\0".getBytes(StandardCharsets.US_ASCII),
                new byte[] {(byte) 0xFE, 0, 0, 0, 0, 0, 0, 0, (byte) 0x80, 'x'}));
        long withAttrs = caps | Capabilities.CLIENT_CONNECT_ATTRS | Capabilities.CLIENT_CONNECT_WITH_DB;
        m.put("connect attributes longer than the packet", concat(fixedPart(withAttrs),
                "app\0".getBytes(StandardCharsets.US_ASCII), new byte[] {0}, "test\0mysql_native_password\0".getBytes(
                        StandardCharsets.US_ASCII), new byte[] {(byte) 0xFC, (byte) 0xFF, 0x7F, 5, 'a', 'b'}));
        m.put("three bytes", new byte[] {0, 2, 0});
        m.put("empty", new byte[0]);
        return m;
    }

    @Test
    void malformedHandshakeResponsesGetErr1043ThenClose() throws Exception {
        for (Map.Entry<String, byte[]> e : malformedResponses().entrySet()) {
            try (RawMysqlClient c = RawMysqlClient.open(port(), READ_TIMEOUT)) {
                c.readGreeting();
                c.writePacket(1, e.getValue());
                long started = System.nanoTime();
                RawPacket answer = c.readPacketOrClose().orElse(null);
                assertThat(answer).as("%s: an ERR packet before the close", e.getKey()).isNotNull();
                assertThat(answer.isErr()).as("%s: answer %s", e.getKey(), answer).isTrue();
                assertThat(answer.err().errorCode()).as("%s: %s", e.getKey(), answer.err()).isEqualTo(ErrorCodes.ER_HANDSHAKE_ERROR);
                assertThat(answer.sequenceId()).as("%s: sequence id", e.getKey()).isEqualTo(2);
                assertThat(c.awaitClosed()).as("%s: closed after the ERR", e.getKey()).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - started)).as("%s: answered at once, not at the handshake "
                        + "timeout", e.getKey()).isLessThan(Duration.ofMillis(900));
            }
        }
    }

    @Test
    void aLoginPacketAnnouncingMoreThanTheLimitIsRefusedAtOnce() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.open(port(), READ_TIMEOUT)) {
            c.readGreeting();
            // 0xFFFFFF: a 16 MB login packet (and more to follow), far over max-packet-size 1m.
            c.writeRaw(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 'a', 'b', 'c'});
            RawPacket answer = c.readPacketOrClose().orElse(null);
            assertThat(answer).as("an ERR packet before the close").isNotNull();
            assertThat(answer.err().errorCode()).isEqualTo(ErrorCodes.ER_HANDSHAKE_ERROR);
            assertThat(c.awaitClosed()).isTrue();
        }
    }

    // ---- packets that never complete, clients that say nothing ----

    @Test
    void aPacketShorterThanItsHeaderSaysThenCloseLeavesSluiceHealthy() throws Exception {
        for (int i = 0; i < 20; i++) {
            try (RawMysqlClient c = RawMysqlClient.open(port(), READ_TIMEOUT)) {
                c.readGreeting();
                c.writeRaw(new byte[] {100, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
            }
        }
        // A normal login right after works.
        try (RawMysqlClient c = RawMysqlClient.login(port(), SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD, "test",
                READ_TIMEOUT)) {
            assertThat(c.query("SELECT 'fine'")).containsExactly(java.util.List.of("fine"));
        }
    }

    @Test
    void aPacketThatNeverCompletesIsCutAtTheHandshakeTimeoutWithAnErr() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.open(port(), READ_TIMEOUT)) {
            c.readGreeting();
            long started = System.nanoTime();
            c.writeRaw(new byte[] {100, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
            assertCutAtTimeout(c, started);
        }
    }

    @Test
    void aClientThatSaysNothingIsCutAtTheHandshakeTimeoutWithAnErr() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.open(port(), READ_TIMEOUT)) {
            long started = System.nanoTime();
            c.readGreeting();
            assertCutAtTimeout(c, started);
        }
    }

    private static void assertCutAtTimeout(RawMysqlClient c, long started) throws Exception {
        RawPacket answer = c.readPacketOrClose().orElse(null);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(answer).as("an ERR packet before the close").isNotNull();
        assertThat(answer.isErr()).as("answer %s", answer).isTrue();
        assertThat(answer.err().errorCode()).isEqualTo(ErrorCodes.ER_HANDSHAKE_ERROR);
        assertThat(c.awaitClosed()).as("closed after the ERR").isTrue();
        assertThat(took).as("cut at the 1 s handshake timeout").isBetween(Duration.ofMillis(800), Duration.ofSeconds(5));
    }

    private static byte[] fixedPart(long caps) {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt((int) caps).putInt(1 << 30).put((byte) 45);
        return b.array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
