package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.server.config.LoginFailureLimit;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code limits.login-failures}, counted per address and account: after too many wrong passwords
 * for one account from one address, that account is refused from there at once (ERR 1129, "Host …
 * is blocked") until the block ends — even with the right password — while the other accounts of
 * that address, and other addresses, log in as fast as ever. Failures over many accounts block the
 * whole address, before the greeting. (Loopback has many addresses: the "attackers" connect from
 * 127.0.0.2 to 127.0.0.4, everyone else from 127.0.0.1.)
 */
class LoginRateLimitTest {
    private static final int MAX = 5;
    /** Long enough for 200 refused connections on a loaded machine. */
    private static final Duration BLOCK = Duration.ofSeconds(10);
    private static final Duration PROMPT = Duration.ofSeconds(10);
    private static final int BLOCKED_ATTEMPTS = 200;
    private static GuardedSluice sluice;

    @BeforeAll
    static void start() {
        sluice = GuardedSluice.start("""
                limits: {login-failures: {max: %d, window: 1m, block: %ds}}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:0, mode: read-write}
                """.formatted(MAX, BLOCK.toSeconds()));
    }

    @AfterEach
    void bystanderUnaffected() {
        sluice.assertBystanderUnaffected();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
    }

    private static Connection connect(String from, String password) throws SQLException {
        return connect(from, SandboxCluster.APP_USER, password);
    }

    private static Connection connect(String from, String user, String password) throws SQLException {
        return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + sluice.port("rw") + "/test?user="
                + user + "&password=" + password + "&localSocketAddress=" + from
                + "&connectTimeout=30000&socketTimeout=60000");
    }

    private static SQLException refusal(String from, String password) {
        return refusal(from, SandboxCluster.APP_USER, password);
    }

    private static SQLException refusal(String from, String user, String password) {
        return catchThrowableOfType(SQLException.class, () -> connect(from, user, password).close());
    }

    private static void assertPromptLogin(String from) throws SQLException {
        long start = System.nanoTime();
        try (Connection c = connect(from, SandboxCluster.APP_PASSWORD)) {
            assertThat(c.isValid(30)).isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPT);
    }

    @Test
    void anAddressWithTooManyFailuresIsBlockedForAWhileAndNoOtherIs() throws Exception {
        String attacker = "127.0.0.2";
        for (int i = 0; i < MAX; i++) {
            SQLException e = refusal(attacker, "guess-" + i);
            assertThat(e.getErrorCode()).as("failure %d", i + 1).isEqualTo(1045);
        }
        long blockedAt = System.nanoTime();
        SQLException blocked = refusal(attacker, SandboxCluster.APP_PASSWORD);
        assertThat(blocked.getErrorCode()).isEqualTo(1129);
        assertThat(blocked.getMessage()).contains("Host '" + attacker + "' is blocked");
        // Everyone else: unaffected, whether right or wrong.
        assertPromptLogin("127.0.0.1");
        assertThat(refusal("127.0.0.1", "a-wrong-one").getErrorCode()).isEqualTo(1045);
        // The block ends.
        await().atMost(BLOCK.plus(PROMPT)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
            connect(attacker, SandboxCluster.APP_PASSWORD).close();
            return true;
        });
        assertThat(Duration.ofNanos(System.nanoTime() - blockedAt)).isGreaterThanOrEqualTo(BLOCK.minusMillis(200));
    }

    @Test
    void wrongPasswordsForOneAccountSpareTheOtherAccountsOfTheSameAddress() throws Exception {
        String host = "127.0.0.4";
        String stale = "it_stale_cron_job";
        for (int i = 0; i < MAX; i++) {
            assertThat(refusal(host, stale, "stale-" + i).getErrorCode()).as("failure %d", i + 1).isEqualTo(1045);
        }
        SQLException blocked = refusal(host, stale, "stale-again");
        assertThat(blocked.getErrorCode()).isEqualTo(1129);
        assertThat(blocked.getMessage()).contains("Host '" + host + "' is blocked for user '" + stale + "'");
        // The application's own account, from the same address: as before, right or wrong.
        assertPromptLogin(host);
        assertThat(refusal(host, "a-wrong-one").getErrorCode()).isEqualTo(1045);
        assertPromptLogin(host);
    }

    @Test
    void aBlockedAddressIsRefusedAtOnceOnTheWireWhileOthersLogIn() throws Exception {
        String attacker = "127.0.0.3";
        // Guessing over many account names, concurrently as a sprayer would: the address as a whole
        // is blocked once it has failed as many accounts' worth as the limit allows.
        int accounts = LoginFailureLimit.ACCOUNTS_PER_ADDRESS;
        ExecutorService sprayers = Executors.newFixedThreadPool(accounts);
        try {
            List<Future<List<Integer>>> codes = new ArrayList<>();
            for (int a = 0; a < accounts; a++) {
                String user = "it_sprayed_" + a;
                codes.add(sprayers.submit(() -> {
                    List<Integer> mine = new ArrayList<>();
                    for (int i = 0; i < MAX; i++) {
                        mine.add(refusal(attacker, user, "guess-" + i).getErrorCode());
                    }
                    return mine;
                }));
            }
            for (Future<List<Integer>> f : codes) {
                assertThat(f.get()).containsOnly(1045);
            }
        } finally {
            sprayers.shutdownNow();
        }
        long start = System.nanoTime();
        for (int i = 0; i < BLOCKED_ATTEMPTS; i++) {
            assertThat(firstPacketFrom(attacker)).startsWith("ERR 1129 seq 0: Host '127.0.0.3' is blocked because");
            if (i % 50 == 0) {
                assertPromptLogin("127.0.0.1");
            }
        }
        System.out.printf("[login-failures] %d refusals of a blocked address in %d ms%n", BLOCKED_ATTEMPTS,
                (System.nanoTime() - start) / 1_000_000);
    }

    /** Connects from {@code from} and describes Sluice's first packet. */
    private static String firstPacketFrom(String from) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", sluice.port("rw")), 30_000);
            s.setSoTimeout(30_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] header = new byte[4];
            in.readFully(header);
            int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
            byte[] p = new byte[length];
            in.readFully(p);
            if ((p[0] & 0xFF) != 0xFF) {
                return "not an ERR: 0x" + Integer.toHexString(p[0] & 0xFF);
            }
            int code = (p[1] & 0xFF) | (p[2] & 0xFF) << 8;
            String message = new String(p, 9, p.length - 9, StandardCharsets.UTF_8);
            boolean closed = in.read() < 0;
            return "ERR " + code + " seq " + header[3] + ": " + message + (closed ? "" : " (left open)");
        }
    }
}
