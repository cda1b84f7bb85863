package dev.sluice.routing.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TopologyTest {

    @Test
    void idsAreStableAndNeverReused() {
        Topology t = Topology.empty().withNode("primary", "h:1", NodeRole.PRIMARY)
                .withNode("ro1", "h:2", NodeRole.REPLICA).withNode("ro2", "h:3", NodeRole.REPLICA);
        assertThat(t.node("ro2").orElseThrow().id()).isEqualTo(2);
        Topology removed = t.withoutNode("ro1");
        assertThat(removed.contains(1)).isFalse();
        assertThat(removed.node("ro2").orElseThrow().id()).isEqualTo(2);
        Topology readded = removed.withNode("ro1", "h:2", NodeRole.REPLICA);
        assertThat(readded.node("ro1").orElseThrow().id()).as("a new id, not 1").isEqualTo(3);
        assertThat(readded.idLimit()).isEqualTo(4);
        assertThat(readded.nodes()).extracting(Node::name).containsExactly("primary", "ro2", "ro1");
    }

    @Test
    void withersPublishNewSnapshotsAndLeaveOldOnesAlone() {
        Topology t = Topology.empty().withNode("ro1", "h:2", NodeRole.REPLICA);
        Topology monitored = t.withState("ro1", NodeState.replica(ReplicationLag.ofSeconds(3)));
        assertThat(t.node("ro1").orElseThrow().state()).isEqualTo(NodeState.UNMONITORED);
        assertThat(monitored.node("ro1").orElseThrow().state().lag().seconds()).isEqualTo(3);
        assertThat(monitored.withDraining("ro1", true).node("ro1").orElseThrow().draining()).isTrue();
        assertThatThrownBy(() -> t.withNode("ro1", "x", NodeRole.REPLICA)).hasMessageContaining("already exists");
        assertThatThrownBy(() -> t.withNode("p1", "x", NodeRole.PRIMARY).withNode("p2", "y", NodeRole.PRIMARY))
                .hasMessageContaining("already has a primary");
    }

    @Test
    void lagSentinels() {
        assertThat(ReplicationLag.ofSeconds(-5)).isEqualTo(ReplicationLag.BROKEN);
        assertThat(ReplicationLag.BROKEN.exceeds(Duration.ofSeconds(30))).isFalse();
        assertThat(ReplicationLag.ofSeconds(31).exceeds(Duration.ofSeconds(30))).isTrue();
        assertThat(ReplicationLag.ofSeconds(30).exceeds(Duration.ofSeconds(30))).isFalse();
        assertThat(NodeState.replica(ReplicationLag.BROKEN).replicationBroken()).isTrue();
        assertThat(NodeState.replica(ReplicationLag.NONE).withReplicationThreads(true, false).replicationBroken())
                .isTrue();
    }
}
