package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.config.SharedConfig.FormerPrimary;
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
    private static final Optional<LeftBehind> HELD = Optional.of(new LeftBehind("primary", "0-1-22", true));
    private static final Optional<LeftBehind> REJOINED = Optional.of(new LeftBehind("primary", "0-1-22", false));
    private static final Optional<FormerPrimary> SHARED_HOLD = Optional.of(new FormerPrimary("primary", "0-1-22"));

    @Test
    void theLeaderWritesWhereThePrimaryIsNow() {
        SharedConfig written = MovesToShare.next(STORED, true, Optional.of("ro1"), NONE).orElseThrow();
        assertThat(written.config().primary().orElseThrow().name()).isEqualTo("ro1");
        assertThat(written.config().node("primary").orElseThrow().role().name()).isEqualTo("REPLICA");
    }

    @Test
    void anotherInstanceLeavesTheRolesToTheLeader() {
        assertThat(MovesToShare.next(STORED, false, Optional.of("ro1"), NONE)).isEmpty();
    }

    @Test
    void nothingIsWrittenWhenEtcdAlreadySaysSo() {
        assertThat(MovesToShare.next(STORED, true, Optional.of("primary"), NONE)).isEmpty();
        SharedConfig moved = new SharedConfig(SEEDED.withPrimary("ro1"), List.of(), SHARED_HOLD);
        assertThat(MovesToShare.next(moved, true, Optional.of("ro1"), HELD)).isEmpty();
    }

    @Test
    void aFailoversOldPrimaryIsHeldOutEverywhereWithItsPositionUntilItRejoins() {
        SharedConfig written = MovesToShare.next(STORED, true, Optional.of("ro1"), HELD).orElseThrow();
        assertThat(written.formerPrimary()).isEqualTo(SHARED_HOLD);
        assertThat(written.outOfTraffic()).containsExactly("primary");
        assertThat(written.config().primary().orElseThrow().name()).isEqualTo("ro1");

        SharedConfig back = MovesToShare.next(written, true, Optional.of("ro1"), REJOINED).orElseThrow();
        assertThat(back.formerPrimary()).isEmpty();
        assertThat(back.outOfTraffic()).isEmpty();
        assertThat(MovesToShare.next(back, true, Optional.of("ro1"), REJOINED)).isEmpty();
    }

    @Test
    void aFailoverRunHereIsSharedEvenWhenThisInstanceNoLongerLeads() {
        SharedConfig written = MovesToShare.next(STORED, false, Optional.of("ro1"), HELD).orElseThrow();
        assertThat(written.formerPrimary()).isEqualTo(SHARED_HOLD);
        assertThat(written.config().primary().orElseThrow().name()).isEqualTo("primary");
    }

    @Test
    void aNewerFailoverReplacesTheHold() {
        SharedConfig older = new SharedConfig(SEEDED, List.of(), Optional.of(new FormerPrimary("ro2", "0-1-5")));
        assertThat(MovesToShare.next(older, true, Optional.of("ro1"), HELD).orElseThrow().formerPrimary())
                .isEqualTo(SHARED_HOLD);
    }

    @Test
    void aDrainAnOperatorAskedStaysWhenTheNodeRejoins() {
        SharedConfig drained = new SharedConfig(SEEDED.withPrimary("ro1"), List.of("primary"), SHARED_HOLD);
        SharedConfig back = MovesToShare.next(drained, true, Optional.of("ro1"), REJOINED).orElseThrow();
        assertThat(back.draining()).containsExactly("primary");
        assertThat(MovesToShare.outOfTraffic(drained, REJOINED)).containsExactly("primary");
    }

    @Test
    void thisInstanceHoldsItsOldPrimaryOutBeforeEtcdSaysSoAndLetsItBackAsSoonAsItRejoined() {
        SharedConfig drainsRo2 = new SharedConfig(SEEDED, List.of("ro2"));
        assertThat(MovesToShare.outOfTraffic(drainsRo2, HELD)).containsExactly("ro2", "primary");
        SharedConfig holding = new SharedConfig(SEEDED, List.of("ro2"), SHARED_HOLD);
        assertThat(MovesToShare.outOfTraffic(holding, NONE)).containsExactly("ro2", "primary");
        assertThat(MovesToShare.outOfTraffic(holding, REJOINED)).containsExactly("ro2");
    }
}
