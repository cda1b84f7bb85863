package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code limits.idle-timeout}: a logged-in client silent for that long is closed, as the server's
 * wait_timeout does; one waiting for a long query's result, or one that keeps talking, is not.
 */
class IdleTimeoutTest {
    private static final Duration IDLE = Duration.ofSeconds(2);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            limits: {idle-timeout: %ds}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """.formatted(IDLE.toSeconds()));

    private static RawMysqlClient login() throws Exception {
        return RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD, "test",
                READ_TIMEOUT);
    }

    @Test
    void aSilentClientIsClosedAfterTheIdleTimeout() throws Exception {
        try (RawMysqlClient c = login()) {
            assertThat(c.query("SELECT 1")).containsExactly(java.util.List.of("1"));
            long start = System.nanoTime();
            assertThat(c.awaitClosed()).isTrue();
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ms).isBetween(IDLE.toMillis() - 100, IDLE.toMillis() + READ_TIMEOUT.toMillis() / 4);
        }
    }

    @Test
    void aClientWaitingForALongQueryIsNotCut() throws Exception {
        try (RawMysqlClient c = login()) {
            long seconds = IDLE.toSeconds() * 3;
            assertThat(c.query("SELECT SLEEP(" + seconds + ")")).containsExactly(java.util.List.of("0"));
            // The answer just went out: the idle clock starts again from it.
            assertThat(c.query("SELECT 2")).containsExactly(java.util.List.of("2"));
        }
    }

    @Test
    void aClientThatKeepsTalkingStays() throws Exception {
        try (RawMysqlClient c = login()) {
            long until = System.nanoTime() + IDLE.multipliedBy(3).toNanos();
            int n = 0;
            while (System.nanoTime() < until) {
                n++;
                assertThat(c.query("SELECT " + n)).containsExactly(java.util.List.of(Integer.toString(n)));
                Thread.sleep(IDLE.toMillis() / 4);
            }
        }
    }
}
