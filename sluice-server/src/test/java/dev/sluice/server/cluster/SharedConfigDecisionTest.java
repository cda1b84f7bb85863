package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.ConfigWriter;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.config.SluiceConfig;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SharedConfigDecisionTest {
    private static final String NODES = """
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312}
            """;
    private static final SluiceConfig RUNNING = ConfigLoader.parse(NODES + """
            endpoints: [{name: rw, listen: 127.0.0.1:6033}]
            admin: {listen: 127.0.0.1:9033}
            """);
    private static final String CHANGED = NODES + """
            endpoints: [{name: rw, listen: 127.0.0.1:6033, consistency: global}]
            """;

    @Test
    void anEmptyPrefixIsSeededWithTheRunningNodesAndEndpoints() {
        var d = SharedConfigDecision.decide(RUNNING, Optional.empty(), 0);
        assertThat(d).isInstanceOf(SharedConfigDecision.Seed.class);
        String yaml = ((SharedConfigDecision.Seed) d).yaml();
        assertThat(yaml).doesNotContain("admin");
        SluiceConfig back = ConfigLoader.withShared(RUNNING, yaml);
        assertThat(back).isEqualTo(RUNNING);
    }

    @Test
    void aNewerValidConfigurationIsRunWithTheLocalSectionsKept() {
        var d = SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(CHANGED, 7)), 5);
        assertThat(d).isInstanceOf(SharedConfigDecision.Apply.class);
        var apply = (SharedConfigDecision.Apply) d;
        assertThat(apply.revision()).isEqualTo(7);
        assertThat(apply.config().endpoints().get(0).policy().consistency().name()).isEqualTo("GLOBAL");
        assertThat(apply.config().admin()).isEqualTo(RUNNING.admin());
    }

    @Test
    void aRevisionAlreadySettledIsNotRunAgain() {
        assertThat(SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(CHANGED, 7)), 7))
                .isInstanceOf(SharedConfigDecision.UpToDate.class);
        assertThat(SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(CHANGED, 6)), 7))
                .isInstanceOf(SharedConfigDecision.UpToDate.class);
    }

    @Test
    void anInvalidConfigurationIsRefusedWithTheFilesMessage() {
        String bad = NODES + "endpoints: [{name: rw, listen: 127.0.0.1:6033, consistency: sometimes}]\n";
        var d = SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(bad, 9)), 7);
        assertThat(d).isInstanceOf(SharedConfigDecision.Refuse.class);
        assertThat(((SharedConfigDecision.Refuse) d).reason()).contains("consistency").contains("sometimes");
        assertThat(((SharedConfigDecision.Refuse) d).revision()).isEqualTo(9);
    }

    @Test
    void aNodeRedefinedInPlaceIsRefused() {
        String moved = """
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary}
                  - {name: ro1, address: 127.0.0.9:3312}
                endpoints: [{name: rw, listen: 127.0.0.1:6033}]
                """;
        var d = SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(moved, 9)), 7);
        assertThat(d).isInstanceOf(SharedConfigDecision.Refuse.class);
    }

    @Test
    void aSeedWrittenByItselfReadsBackAsNoChange() {
        String seeded = ConfigWriter.sharedYaml(RUNNING);
        var d = SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(seeded, 2)), 0);
        assertThat(d).isInstanceOf(SharedConfigDecision.Apply.class);
        assertThat(((SharedConfigDecision.Apply) d).config()).isEqualTo(RUNNING);
    }

    @Test
    void drainsAreSharedAndDropWithTheirNode() {
        var seed = SharedConfigDecision.decide(new SharedConfig(RUNNING, List.of("ro1")), Optional.empty(), 0,
                Optional.empty());
        String yaml = ((SharedConfigDecision.Seed) seed).yaml();
        assertThat(yaml).contains("draining");
        var apply = SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(yaml, 3)), 0);
        assertThat(((SharedConfigDecision.Apply) apply).draining()).containsExactly("ro1");
        SharedConfig shared = ConfigLoader.shared(RUNNING, yaml);
        SluiceConfig withoutRo1 = RUNNING.with(List.of(RUNNING.nodes().get(0)), List.of());
        assertThat(shared.with(withoutRo1).draining()).isEmpty();
        assertThat(shared.draining("ro1").draining()).containsExactly("ro1");
    }

    @Test
    void aDrainOfAnUnknownNodeIsRefused() {
        String bad = NODES + "endpoints: [{name: rw, listen: 127.0.0.1:6033}]\ndraining: [ro7]\n";
        var d = SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(bad, 9)), 7);
        assertThat(((SharedConfigDecision.Refuse) d).reason()).contains("draining: unknown node 'ro7'");
    }
    /** The shared configuration after the leader wrote a switchover to ro1. */
    private static final String MOVED_TO_RO1 = """
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: replica}
              - {name: ro1, address: 127.0.0.1:3312, role: primary}
            endpoints: [{name: rw, listen: 127.0.0.1:6033}]
            """;

    @Test
    void aPrimaryMovedInEtcdIsFollowed() {
        var d = SharedConfigDecision.decide(new SharedConfig(RUNNING, List.of()),
                Optional.of(new StoredConfig(MOVED_TO_RO1, 9)), 7, Optional.of("primary"));
        var apply = (SharedConfigDecision.Apply) d;
        assertThat(apply.follow()).contains("ro1");
        assertThat(apply.sharedPrimary()).contains("ro1");
        assertThat(apply.config().primary().orElseThrow().name()).isEqualTo("ro1");
    }

    @Test
    void aPrimaryThisInstanceAlreadyFollowsNeedsNoMove() {
        var d = SharedConfigDecision.decide(new SharedConfig(RUNNING.withPrimary("ro1"), List.of()),
                Optional.of(new StoredConfig(MOVED_TO_RO1, 9)), 7, Optional.of("primary"));
        var apply = (SharedConfigDecision.Apply) d;
        assertThat(apply.follow()).isEmpty();
        assertThat(apply.config().primary().orElseThrow().name()).isEqualTo("ro1");
    }

    @Test
    void aChangeThatLeavesEtcdsPrimaryWhereItWasKeepsTheRunningRoles() {
        // This instance's monitor followed a move to ro1 that the leader has not written yet; a weight
        // change written meanwhile still names the old primary, and must not move it back.
        var d = SharedConfigDecision.decide(new SharedConfig(RUNNING.withPrimary("ro1"), List.of()),
                Optional.of(new StoredConfig(CHANGED, 9)), 7, Optional.of("primary"));
        var apply = (SharedConfigDecision.Apply) d;
        assertThat(apply.follow()).isEmpty();
        assertThat(apply.sharedPrimary()).contains("primary");
        assertThat(apply.config().primary().orElseThrow().name()).isEqualTo("ro1");
        assertThat(apply.config().endpoints().get(0).policy().consistency().name()).isEqualTo("GLOBAL");
    }

    @Test
    void anInstanceStartsWithTheRolesEtcdHolds() {
        var d = SharedConfigDecision.decide(RUNNING, Optional.of(new StoredConfig(MOVED_TO_RO1, 9)), 0);
        assertThat(((SharedConfigDecision.Apply) d).config().primary().orElseThrow().name()).isEqualTo("ro1");
    }
    @Test
    void aFailoversOldPrimaryHeldOutIsSharedWithItsPosition() {
        SharedConfig held = new SharedConfig(RUNNING.withPrimary("ro1"), List.of(),
                Optional.of(new SharedConfig.FormerPrimary("primary", "0-1-22")));
        String yaml = ConfigWriter.sharedYaml(held);
        var apply = (SharedConfigDecision.Apply) SharedConfigDecision.decide(RUNNING,
                Optional.of(new StoredConfig(yaml, 4)), 0);
        assertThat(apply.formerPrimary()).contains(new SharedConfig.FormerPrimary("primary", "0-1-22"));
        assertThat(apply.shared().outOfTraffic()).containsExactly("primary");
        String unknown = yaml.replace("node: \"primary\"", "node: \"ro9\"").replace("node: primary", "node: ro9");
        assertThat(((SharedConfigDecision.Refuse) SharedConfigDecision.decide(RUNNING,
                Optional.of(new StoredConfig(unknown, 5)), 0)).reason()).contains("former-primary: unknown node 'ro9'");
    }
}
