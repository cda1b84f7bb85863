package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.admin.AdminException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChangeOutcomeTest {
    @Test
    void aSwapThatSucceededIsCommittedAtTheNewRevision() {
        assertThat(ChangeOutcome.ofTransaction(true, 42, 40)).isEqualTo(new ChangeOutcome.Committed(42));
    }

    @Test
    void aSwapThatLostIsAConflictToRetry() {
        ChangeOutcome o = ChangeOutcome.ofTransaction(false, 42, 40);
        assertThat(o).isEqualTo(new ChangeOutcome.Conflict(40));
        AdminException e = ((ChangeOutcome.Conflict) o).refusal();
        assertThat(e.status()).isEqualTo(409);
        assertThat(e.getMessage()).contains("changed meanwhile").contains("nothing was changed").contains("retry");
    }

    @Test
    void anUnreachableEtcdRefusesWith503() {
        AdminException e = new ChangeOutcome.Unreachable("no answer within 2000 ms").refusal();
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.getMessage()).contains("etcd is unreachable").contains("not made").contains("retry");
    }

    @Test
    void aRevisionWaitedForEndsRunRefusedOrTimedOut() throws InterruptedException {
        SettledRevisions s = new SettledRevisions();
        s.settle(5, Optional.empty());
        assertThat(s.await(5, Duration.ofMillis(1))).isEmpty();
        s.settle(6, Optional.of("bad"));
        assertThat(s.await(6, Duration.ofMillis(1))).contains("bad");
        assertThat(s.lastGood()).isEqualTo(5);
        // Older revisions never move it back.
        s.settle(3, Optional.empty());
        assertThat(s.newest()).isEqualTo(6);
        assertThat(s.await(7, Duration.ofMillis(1))).hasValueSatisfying(m -> assertThat(m).contains("not run it"));
    }
}
