package dev.sluice.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.auth.AccountStore;
import dev.sluice.server.auth.Authenticator;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.monitor.RoleFollower;
import dev.sluice.server.monitor.TopologyHolder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The running configuration names the primary the topology has, whoever moved it. */
class RunningRolesTest {
    private static final SluiceConfig SEEDED = ConfigLoader.parse("""
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312}
            endpoints: [{name: rw, listen: 127.0.0.1:6033}]
            """);

    @Test
    void aMovedPrimaryIsTheConfigurationsPrimaryAndAConfigurationRunLaterKeepsIt() {
        TopologyHolder topology = new TopologyHolder(ConfigLoader.topologyOf(SEEDED.nodes()));
        ProxyRuntime runtime = new ProxyRuntime(SEEDED, null, new Authenticator(new AccountStore(
                () -> CompletableFuture.failedFuture(new IllegalStateException("no accounts here")), Map.of(),
                Duration.ofSeconds(1), System::nanoTime)), topology, new SluiceMetrics());
        topology.update(t -> RoleFollower.promote(t, t.node("ro1").orElseThrow()));

        assertThat(runtime.config().primary().orElseThrow().name()).isEqualTo("ro1");
        assertThat(runtime.config().node("primary").orElseThrow().role().name()).isEqualTo("REPLICA");
        // A change made from the configuration Sluice started with (a file read again, say) does not move it back.
        runtime.config(SEEDED.with(SEEDED.nodes(), List.of()));
        assertThat(runtime.config().primary().orElseThrow().name()).isEqualTo("ro1");
        assertThat(runtime.config().endpoints()).isEmpty();
    }
}
