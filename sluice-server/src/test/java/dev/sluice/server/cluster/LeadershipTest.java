package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Who leads after a campaign, and until when this instance may act as leader: with a 5 s lease and
 * a 1 s guard, 4 s after the renewal was sent, never as long as etcd keeps the lease.
 */
class LeadershipTest {
    private static final Duration TTL = Duration.ofSeconds(5);
    private static final long SECOND = 1_000_000_000L;
    private static final long OWN_LEASE = 7;

    @ParameterizedTest(name = "[{index}] key {0}/{1}, ms after the renewal {2}: leader {3}, leading {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # holder | key's lease | ms after renewal sent | leader | leading
            a        | 7           | 0                     | a      | true
            a        | 7           | 3999                  | a      | true
            a        | 7           | 4000                  | a      | false
            a        | 7           | 60000                 | a      | false
            b        | 9           | 0                     | b      | false
            a        | 9           | 0                     | a      | false
            -        | -           | 0                     | -      | false
            """)
    void leadsOnlyUnderItsOwnLeaseAndOnlyWhileTheLeaseSurelyLives(String holder, Long keyLease, long msAfter,
            String leader, boolean leading) {
        long renewedAt = 123 * SECOND;
        Optional<Leadership.LeaderKey> key = holder == null ? Optional.empty()
                : Optional.of(new Leadership.LeaderKey(holder, keyLease));
        Leadership l = Leadership.afterCampaign(key, OWN_LEASE, renewedAt);
        assertThat(l.leader().orElse(null)).isEqualTo(leader);
        assertThat(l.leadingAt(renewedAt + msAfter * 1_000_000L, TTL)).isEqualTo(leading);
    }

    @Test
    void withoutALeaseNothingIsLedEvenIfTheKeySaysNoLease() {
        Leadership l = Leadership.afterCampaign(Optional.of(new Leadership.LeaderKey("a", 0)), 0, 0);
        assertThat(l.leadingAt(0, TTL)).isFalse();
    }

    @Test
    void unknownLeadsNothingAndNamesNoOne() {
        assertThat(Leadership.UNKNOWN.leadingAt(0, TTL)).isFalse();
        assertThat(Leadership.UNKNOWN.leader()).isEmpty();
    }

    @Test
    void theGuardLeavesTheFormerLeaderStoppedBeforeAnotherCanTakeTheKey() {
        // Another instance can take the key once etcd expired the lease: TTL after the renewal reached etcd at the
        // earliest, which is not before it was sent.
        long renewedAt = 0;
        long earliestExpiryOnEtcd = renewedAt + TTL.toNanos();
        Leadership l = Leadership.afterCampaign(Optional.of(new Leadership.LeaderKey("a", OWN_LEASE)), OWN_LEASE,
                renewedAt);
        assertThat(l.leadingAt(earliestExpiryOnEtcd - Leadership.GUARD.toNanos(), TTL)).isFalse();
    }
}
