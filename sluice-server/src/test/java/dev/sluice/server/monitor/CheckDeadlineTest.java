package dev.sluice.server.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When a late check timeout says the proxy, not the node, was stalled. */
class CheckDeadlineTest {
    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void aTimeoutOnTimeOrSlightlyLateIsNotAStall() {
        CheckDeadline d = CheckDeadline.start(ms(1_000), 2_000);
        assertThat(d.proxyStalled(ms(3_000))).isFalse();
        assertThat(d.proxyStalled(ms(3_099))).isFalse();
        assertThat(d.lateMillis(ms(3_099))).isEqualTo(99);
    }

    @Test
    void aTimeoutLateByTheThresholdAndHalfItsAllowanceIsAStall() {
        CheckDeadline d = CheckDeadline.start(0, 2_000);
        assertThat(d.proxyStalled(ms(2_000 + 999))).as("late, but under half the allowance").isFalse();
        assertThat(d.proxyStalled(ms(2_000 + 1_000))).isTrue();
    }

    @Test
    void aShortAllowanceStillNeedsTheThresholdSoTimerJitterNeverExtendsIt() {
        CheckDeadline d = CheckDeadline.start(0, 3);
        assertThat(d.proxyStalled(ms(3 + 50))).isFalse();
        assertThat(d.proxyStalled(ms(3 + 100))).isTrue();
    }

    @Test
    void theExtensionIsGivenOnceAndCountsFromWhenTheLateTimeoutRan() {
        CheckDeadline d = CheckDeadline.start(0, 2_000).extendedFrom(ms(5_000));
        assertThat(d.deadlineNanos()).isEqualTo(ms(7_000));
        assertThat(d.proxyStalled(ms(60_000))).isFalse();
    }

    @Test
    void aTimeoutThatRanEarlyIsNotLate() {
        assertThat(CheckDeadline.start(ms(1_000), 10).lateMillis(0)).isZero();
    }
}
