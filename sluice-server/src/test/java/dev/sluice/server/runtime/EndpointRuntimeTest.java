package dev.sluice.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import org.junit.jupiter.api.Test;

class EndpointRuntimeTest {
    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            monitor: {user: monitor, password: monitor, interval: 1s}
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312, role: replica}
            endpoints:
              - {name: ro, listen: 127.0.0.1:0, mode: read-only, nodes: [ro1]}
            """);

    @Test
    void anEndpointCatchesUpWithTopologyChangesMadeBeforeItWasRegistered() {
        Topology unmonitored = ConfigLoader.topologyOf(CONFIG.nodes());
        EndpointRuntime endpoint = new EndpointRuntime(CONFIG.endpoints().get(0), unmonitored);
        int ro1 = unmonitored.node("ro1").orElseThrow().id();
        assertThat(endpoint.view().readable().isReadable(ro1)).as("before the monitor saw ro1").isFalse();

        // The monitor sees ro1 up while the endpoint still binds: no listener tells it.
        var applied = MariaDbGtidList.parse("0-1-100").orElseThrow();
        Topology observed = unmonitored.withState("primary", NodeState.primary(applied))
                .withState("ro1", NodeState.replica(ReplicationLag.NONE, applied));
        endpoint.catchUp(() -> observed);

        assertThat(endpoint.view().topology()).isSameAs(observed);
        assertThat(endpoint.view().readable().isReadable(ro1)).as("after catching up").isTrue();
    }
}
