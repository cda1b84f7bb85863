package dev.sluice.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import org.junit.jupiter.api.Test;

/** Which nodes' sessions are told to leave them: replicas that were reachable and are not any more. */
class NewlyUnreachableReplicasTest {

    private static Topology healthy() {
        Topology t = Topology.empty().withNode("primary", "h:1", NodeRole.PRIMARY)
                .withState("primary", NodeState.primary(MariaDbGtidList.EMPTY));
        for (String name : new String[] {"ro1", "ro2"}) {
            t = t.withNode(name, "h:" + name, NodeRole.REPLICA).withState(name, NodeState.replica(ReplicationLag.NONE));
        }
        return t;
    }

    private static Topology down(Topology t, String name) {
        return t.withState(name, t.node(name).orElseThrow().state().withReachable(false));
    }

    @Test
    void aReplicaThatJustWentDownIsReported() {
        Topology before = healthy();
        Topology after = down(before, "ro2");
        assertThat(ProxyRuntime.newlyUnreachableReplicas(before, after))
                .containsExactly(after.node("ro2").orElseThrow().id());
    }

    @Test
    void aReplicaAlreadyDownIsNotReportedAgain() {
        Topology before = down(healthy(), "ro2");
        assertThat(ProxyRuntime.newlyUnreachableReplicas(before, before)).isEmpty();
    }

    @Test
    void thePrimaryGoingDownIsNotReported() {
        Topology before = healthy();
        assertThat(ProxyRuntime.newlyUnreachableReplicas(before, down(before, "primary"))).isEmpty();
    }

    @Test
    void aNodeNeverCheckedBeforeIsNotReported() {
        Topology before = Topology.empty().withNode("primary", "h:1", NodeRole.PRIMARY)
                .withNode("ro1", "h:2", NodeRole.REPLICA);
        Topology after = before.withState("ro1", NodeState.UNMONITORED);
        assertThat(ProxyRuntime.newlyUnreachableReplicas(before, after)).isEmpty();
    }
}
