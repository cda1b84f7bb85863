package dev.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.auth.LoginThrottle.Outcome;
import dev.sluice.server.config.LoginFailureLimit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
    private static final String ATTACKER = "10.0.0.66";
    private static final String NEIGHBOUR = "10.0.0.67";
    private static final String GUESSED = "admin";
    private static final String CRON = "reports";
    private static final int MAX = 3;
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LoginThrottle throttle = new LoginThrottle(
            new LoginFailureLimit(MAX, Duration.ofSeconds(60), Duration.ofSeconds(30)), now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void theThirdFailureOfAnAccountWithinTheWindowBlocksThatAccountForTheBlockTime() {
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.blockedFor(ATTACKER, GUESSED)).isEmpty();
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.ACCOUNT_BLOCKED);
        assertThat(throttle.blockedFor(ATTACKER, GUESSED)).contains(Duration.ofSeconds(30));
        advance(Duration.ofSeconds(29));
        assertThat(throttle.blockedFor(ATTACKER, GUESSED)).contains(Duration.ofSeconds(1));
        advance(Duration.ofSeconds(1));
        assertThat(throttle.blockedFor(ATTACKER, GUESSED)).isEmpty();
    }

    @Test
    void aBlockedAccountSparesTheOtherAccountsOfTheSameAddress() {
        for (int i = 0; i < MAX; i++) {
            throttle.failed(ATTACKER, CRON);
        }
        assertThat(throttle.blockedFor(ATTACKER, CRON)).isPresent();
        assertThat(throttle.blockedFor(ATTACKER, "app")).isEmpty();
        assertThat(throttle.blockedFor(ATTACKER)).as("the address as a whole").isEmpty();
        assertThat(throttle.failed(ATTACKER, "app")).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.blockedFor(ATTACKER, "app")).isEmpty();
    }

    @Test
    void failuresOverManyAccountsBlockTheWholeAddress() {
        int addressMax = MAX * LoginFailureLimit.ACCOUNTS_PER_ADDRESS;
        for (int i = 0; i < addressMax - 1; i++) {
            assertThat(throttle.failed(ATTACKER, "user-" + i)).isEqualTo(Outcome.COUNTED);
        }
        assertThat(throttle.blockedFor(ATTACKER)).isEmpty();
        assertThat(throttle.failed(ATTACKER, "user-last")).isEqualTo(Outcome.ADDRESS_BLOCKED);
        assertThat(throttle.blockedFor(ATTACKER)).contains(Duration.ofSeconds(30));
        assertThat(throttle.blockedFor(ATTACKER, "app")).as("every account of a blocked address")
                .contains(Duration.ofSeconds(30));
        assertThat(throttle.blockedFor(NEIGHBOUR)).isEmpty();
    }

    @Test
    void otherAddressesAreNeverAffected() {
        for (int i = 0; i < 10 * MAX * LoginFailureLimit.ACCOUNTS_PER_ADDRESS; i++) {
            throttle.failed(ATTACKER, GUESSED + (i % MAX));
        }
        assertThat(throttle.blockedFor(ATTACKER)).isPresent();
        assertThat(throttle.blockedFor(NEIGHBOUR)).isEmpty();
        assertThat(throttle.blockedFor(NEIGHBOUR, GUESSED + 0)).isEmpty();
        assertThat(throttle.failed(NEIGHBOUR, GUESSED + 0)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.blockedFor(NEIGHBOUR, GUESSED + 0)).isEmpty();
    }

    @Test
    void failuresOutsideTheWindowDoNotAddUp() {
        throttle.failed(ATTACKER, GUESSED);
        throttle.failed(ATTACKER, GUESSED);
        advance(Duration.ofSeconds(61));
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.blockedFor(ATTACKER, GUESSED)).isEmpty();
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.ACCOUNT_BLOCKED);
    }

    @Test
    void failuresWhileBlockedDoNotExtendTheBlock() {
        for (int i = 0; i < MAX; i++) {
            throttle.failed(ATTACKER, GUESSED);
        }
        advance(Duration.ofSeconds(20));
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.blockedFor(ATTACKER, GUESSED)).contains(Duration.ofSeconds(10));
    }

    @Test
    void afterTheBlockTheCountStartsAfresh() {
        for (int i = 0; i < MAX; i++) {
            throttle.failed(ATTACKER, GUESSED);
        }
        advance(Duration.ofSeconds(31));
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        assertThat(throttle.blockedFor(ATTACKER, GUESSED)).isEmpty();
        assertThat(throttle.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.ACCOUNT_BLOCKED);
    }

    @Test
    void maxZeroTurnsTheLimitOff() {
        LoginThrottle off = new LoginThrottle(new LoginFailureLimit(0, Duration.ofSeconds(1), Duration.ofSeconds(1)),
                now::get);
        for (int i = 0; i < 1000; i++) {
            assertThat(off.failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
        }
        assertThat(off.blockedFor(ATTACKER)).isEmpty();
        assertThat(off.blockedFor(ATTACKER, GUESSED)).isEmpty();
        assertThat(off.tracked()).isZero();
        assertThat(LoginThrottle.off().failed(ATTACKER, GUESSED)).isEqualTo(Outcome.COUNTED);
    }

    @Test
    void theTableIsBoundedAndForgetsTheStalestEntriesFirst() {
        // Each failure makes two entries: the account from the address, and the address.
        LoginThrottle small = new LoginThrottle(new LoginFailureLimit(2, Duration.ofSeconds(60),
                Duration.ofSeconds(30)), now::get, 4);
        small.failed("a", GUESSED);
        small.failed("a", GUESSED); // the account is blocked from "a"
        advance(Duration.ofSeconds(1));
        small.failed("b", GUESSED);
        small.blockedFor("a", GUESSED); // recently looked at: not the stalest any more
        small.failed("c", GUESSED);
        assertThat(small.tracked()).isEqualTo(4);
        assertThat(small.blockedFor("a", GUESSED)).isPresent();
        for (int i = 0; i < 10_000; i++) {
            small.failed("spray-" + i, GUESSED);
        }
        assertThat(small.tracked()).isEqualTo(4);
    }
}
