package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.switchover.Failovers.LeftBehind;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MovesToShareTest {
    private static final SluiceConfig SEEDED = ConfigLoader.parse("""
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312}
              - {name: ro2, address: 127.0.0.1:3313}
            endpoints: [{name: rw, listen: 127.0.0.1:6033}]
            """);
    private static final SharedConfig STORED = new SharedConfig(SEEDED, List.of());
    private static final Optional<LeftBehind> NONE = Optional.empty();

    @Test
    void theLeaderWritesWhereThePrimaryIsNow() {
        var step = MovesToShare.next(STORED, true, Optional.of("ro1"), NONE, Optional.empty());
        assertThat(step.write().orElseThrow().config().primary().orElseThrow().name()).isEqualTo("ro1");
        assertThat(step.write().get().config().node("primary").orElseThrow().role().name()).isEqualTo("REPLICA");
    }

    @Test
    void anotherInstanceLeavesTheRolesToTheLeader() {
        assertThat(MovesToShare.next(STORED, false, Optional.of("ro1"), NONE, Optional.empty()).write()).isEmpty();
    }

    @Test
    void nothingIsWrittenWhenEtcdAlreadySaysSo() {
        assertThat(MovesToShare.next(STORED, true, Optional.of("primary"), NONE, Optional.empty()).write()).isEmpty();
        SharedConfig moved = new SharedConfig(SEEDED.withPrimary("ro1"), List.of("primary"));
        var step = MovesToShare.next(moved, true, Optional.of("ro1"), Optional.of(new LeftBehind("primary", true)),
                Optional.of("primary"));
        assertThat(step.write()).isEmpty();
        assertThat(step.drainedHere()).contains("primary");
    }

    @Test
    void aFailoversOldPrimaryIsDrainedEverywhereUntilItRejoins() {
        Optional<LeftBehind> held = Optional.of(new LeftBehind("primary", true));
        var failedOver = MovesToShare.next(STORED, true, Optional.of("ro1"), held, Optional.empty());
        SharedConfig written = failedOver.write().orElseThrow();
        assertThat(written.draining()).containsExactly("primary");
        assertThat(written.config().primary().orElseThrow().name()).isEqualTo("ro1");
        assertThat(failedOver.drainedHere()).contains("primary");

        Optional<LeftBehind> rejoined = Optional.of(new LeftBehind("primary", false));
        var back = MovesToShare.next(written, true, Optional.of("ro1"), rejoined, failedOver.drainedHere());
        assertThat(back.write().orElseThrow().draining()).isEmpty();
        assertThat(back.drainedHere()).isEmpty();
        // Once etcd says so, nothing more.
        assertThat(MovesToShare.next(back.write().get(), true, Optional.of("ro1"), rejoined, back.drainedHere())
                .write()).isEmpty();
    }

    @Test
    void aFailoverRunHereIsSharedEvenWhenThisInstanceNoLongerLeads() {
        var step = MovesToShare.next(STORED, false, Optional.of("ro1"), Optional.of(new LeftBehind("primary", true)),
                Optional.empty());
        assertThat(step.write().orElseThrow().draining()).containsExactly("primary");
        assertThat(step.write().get().config().primary().orElseThrow().name()).isEqualTo("primary");
    }

    @Test
    void aDrainAnOperatorAskedIsNeverTakenOutWhenTheNodeRejoins() {
        SharedConfig drainedByOperator = new SharedConfig(SEEDED.withPrimary("ro1"), List.of("primary"));
        var held = MovesToShare.next(drainedByOperator, true, Optional.of("ro1"),
                Optional.of(new LeftBehind("primary", true)), Optional.empty());
        assertThat(held.write()).isEmpty();
        assertThat(held.drainedHere()).isEmpty();
        var rejoined = MovesToShare.next(drainedByOperator, true, Optional.of("ro1"),
                Optional.of(new LeftBehind("primary", false)), held.drainedHere());
        assertThat(rejoined.write()).isEmpty();
        assertThat(MovesToShare.draining(drainedByOperator.draining(), Optional.of(new LeftBehind("primary", false)),
                held.drainedHere())).containsExactly("primary");
    }

    @Test
    void thisInstanceDrainsItsOldPrimaryBeforeEtcdSaysSoAndLetsItBackAsSoonAsItRejoined() {
        assertThat(MovesToShare.draining(List.of("ro2"), Optional.of(new LeftBehind("primary", true)),
                Optional.empty())).containsExactly("ro2", "primary");
        assertThat(MovesToShare.draining(List.of("ro2", "primary"), Optional.of(new LeftBehind("primary", false)),
                Optional.of("primary"))).containsExactly("ro2");
        assertThat(MovesToShare.draining(List.of("ro2"), NONE, Optional.empty())).containsExactly("ro2");
    }
}
