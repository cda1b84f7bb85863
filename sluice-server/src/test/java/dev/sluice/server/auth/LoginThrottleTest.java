package dev.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.config.LoginFailureLimit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
    private static final String ATTACKER = "10.0.0.66";
    private static final String NEIGHBOUR = "10.0.0.67";
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LoginThrottle throttle = new LoginThrottle(
            new LoginFailureLimit(3, Duration.ofSeconds(60), Duration.ofSeconds(30)), now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void theThirdFailureWithinTheWindowBlocksForTheBlockTime() {
        assertThat(throttle.failed(ATTACKER)).isFalse();
        assertThat(throttle.failed(ATTACKER)).isFalse();
        assertThat(throttle.blockedFor(ATTACKER)).isEmpty();
        assertThat(throttle.failed(ATTACKER)).isTrue();
        assertThat(throttle.blockedFor(ATTACKER)).contains(Duration.ofSeconds(30));
        advance(Duration.ofSeconds(29));
        assertThat(throttle.blockedFor(ATTACKER)).contains(Duration.ofSeconds(1));
        advance(Duration.ofSeconds(1));
        assertThat(throttle.blockedFor(ATTACKER)).isEmpty();
    }

    @Test
    void otherAddressesAreNeverAffected() {
        for (int i = 0; i < 10; i++) {
            throttle.failed(ATTACKER);
        }
        assertThat(throttle.blockedFor(ATTACKER)).isPresent();
        assertThat(throttle.blockedFor(NEIGHBOUR)).isEmpty();
        assertThat(throttle.failed(NEIGHBOUR)).isFalse();
        assertThat(throttle.blockedFor(NEIGHBOUR)).isEmpty();
    }

    @Test
    void failuresOutsideTheWindowDoNotAddUp() {
        throttle.failed(ATTACKER);
        throttle.failed(ATTACKER);
        advance(Duration.ofSeconds(61));
        assertThat(throttle.failed(ATTACKER)).isFalse();
        assertThat(throttle.failed(ATTACKER)).isFalse();
        assertThat(throttle.blockedFor(ATTACKER)).isEmpty();
        assertThat(throttle.failed(ATTACKER)).isTrue();
    }

    @Test
    void failuresWhileBlockedDoNotExtendTheBlock() {
        for (int i = 0; i < 3; i++) {
            throttle.failed(ATTACKER);
        }
        advance(Duration.ofSeconds(20));
        assertThat(throttle.failed(ATTACKER)).isFalse();
        assertThat(throttle.blockedFor(ATTACKER)).contains(Duration.ofSeconds(10));
    }

    @Test
    void afterTheBlockTheCountStartsAfresh() {
        for (int i = 0; i < 3; i++) {
            throttle.failed(ATTACKER);
        }
        advance(Duration.ofSeconds(31));
        assertThat(throttle.failed(ATTACKER)).isFalse();
        assertThat(throttle.failed(ATTACKER)).isFalse();
        assertThat(throttle.blockedFor(ATTACKER)).isEmpty();
        assertThat(throttle.failed(ATTACKER)).isTrue();
    }

    @Test
    void maxZeroTurnsTheLimitOff() {
        LoginThrottle off = new LoginThrottle(new LoginFailureLimit(0, Duration.ofSeconds(1), Duration.ofSeconds(1)),
                now::get);
        for (int i = 0; i < 1000; i++) {
            assertThat(off.failed(ATTACKER)).isFalse();
        }
        assertThat(off.blockedFor(ATTACKER)).isEmpty();
        assertThat(off.trackedAddresses()).isZero();
        assertThat(LoginThrottle.off().failed(ATTACKER)).isFalse();
    }

    @Test
    void theTableIsBoundedAndForgetsTheStalestAddressesFirst() {
        LoginThrottle small = new LoginThrottle(new LoginFailureLimit(2, Duration.ofSeconds(60),
                Duration.ofSeconds(30)), now::get, 3);
        small.failed("a");
        small.failed("a"); // blocked
        advance(Duration.ofSeconds(1));
        small.failed("b");
        small.failed("c");
        small.blockedFor("a"); // recently looked at: not the stalest any more
        small.failed("d");
        assertThat(small.trackedAddresses()).isEqualTo(3);
        assertThat(small.blockedFor("a")).isPresent();
        for (int i = 0; i < 10_000; i++) {
            small.failed("spray-" + i);
        }
        assertThat(small.trackedAddresses()).isEqualTo(3);
    }
}
