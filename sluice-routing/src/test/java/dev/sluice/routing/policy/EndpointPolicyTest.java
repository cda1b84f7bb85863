package dev.sluice.routing.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EndpointPolicyTest {

    private static final Topology CLUSTER = Topology.empty()
            .withNode("primary", "h:1", NodeRole.PRIMARY)
            .withNode("ro1", "h:2", NodeRole.REPLICA, Optional.of("a"), 3)
            .withNode("ro2", "h:3", NodeRole.REPLICA);

    private static Node node(String name) {
        return CLUSTER.node(name).orElseThrow();
    }

    @Test
    void defaultsAreTheSpecDefaults() {
        EndpointPolicy p = EndpointPolicy.defaults("rw");
        assertThat(p.mode()).isEqualTo(EndpointMode.READ_WRITE);
        assertThat(p.balancer()).isEqualTo(BalancerKind.LEAST_ACTIVE);
        assertThat(p.consistency()).isEqualTo(ConsistencyLevel.EVENTUAL);
        assertThat(p.consistencyTimeout()).isEqualTo(Duration.ofMillis(10));
        assertThat(p.timeoutAction()).isEqualTo(TimeoutAction.PRIMARY);
        assertThat(p.maxReplicationLag()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.minReservedNodes()).isZero();
        assertThat(p.transactionSplitting()).isFalse();
        assertThat(p.connectionPool()).isEqualTo(ConnectionPoolMode.NONE);
        assertThat(p.maxConnections()).isEqualTo(10_000);
        assertThat(p.validate(CLUSTER)).isEmpty();
    }

    @Test
    void autoWeightsFollowCapacityAndLeaveThePrimaryOut() {
        EndpointPolicy p = EndpointPolicy.defaults("rw");
        assertThat(p.weightOf(node("primary"))).isZero();
        assertThat(p.weightOf(node("ro1"))).isEqualTo(300);
        assertThat(p.weightOf(node("ro2"))).isEqualTo(100);
        Topology later = CLUSTER.withNode("ro3", "h:4", NodeRole.REPLICA, Optional.empty(), 2);
        assertThat(p.weightOf(later.node("ro3").orElseThrow())).as("added later").isEqualTo(200);
        Topology huge = CLUSTER.withNode("big", "h:9", NodeRole.REPLICA, Optional.empty(), 500);
        assertThat(p.weightOf(huge.node("big").orElseThrow())).isEqualTo(ReadWeights.MAX_WEIGHT);
    }

    @Test
    void customWeightsGiveMissingNodesZero() {
        EndpointPolicy p = EndpointPolicy.defaults("rw").withWeights(new ReadWeights.Custom(Map.of("primary", 50,
                "ro1", 100)));
        assertThat(p.weightOf(node("primary"))).isEqualTo(50);
        assertThat(p.weightOf(node("ro1"))).isEqualTo(100);
        assertThat(p.weightOf(node("ro2"))).isZero();
        assertThat(p.withMode(EndpointMode.READ_ONLY).weightOf(node("primary"))).as("read-only: no primary").isZero();
    }

    @Test
    void validationNamesTheKeyAndTheAllowedValues() {
        EndpointPolicy bad = EndpointPolicy.defaults("reports")
                .withNodes(List.of("primary", "ro1", "ro9"))
                .withWeights(new ReadWeights.Custom(Map.of("ro1", 20_000, "ro2", 5)))
                .withMinReservedNodes(-1)
                .withMaxConnections(0)
                .withConsistencyTimeout(Duration.ofMillis(-1));
        assertThat(bad.validate(CLUSTER)).extracting(PolicyProblem::toString).containsExactlyInAnyOrder(
                "nodes: unknown node 'ro9' (known nodes: primary, ro1, ro2)",
                "weights.ro1: 20000 is outside 0..10000",
                "weights.ro2: unknown node 'ro2' (nodes of endpoint 'reports': primary, ro1)",
                "consistency-timeout: must be 0 or more, got PT-0.001S",
                "min-reserved-nodes: must be 0 or more, got -1",
                "max-connections: must be 1 or more, got 0");
    }

    @Test
    void readWriteNeedsThePrimaryAndAReplica() {
        assertThat(EndpointPolicy.defaults("rw").withNodes(List.of("ro1", "ro2")).validate(CLUSTER))
                .extracting(PolicyProblem::toString)
                .containsExactly("nodes: read-write endpoint 'rw' must include the primary");
        assertThat(EndpointPolicy.defaults("rw").withNodes(List.of("primary")).validate(CLUSTER))
                .extracting(PolicyProblem::toString)
                .containsExactly("nodes: read-write endpoint 'rw' must include at least one replica");
        assertThat(EndpointPolicy.defaults("ro").withMode(EndpointMode.READ_ONLY).withNodes(List.of("ro2"))
                .validate(CLUSTER)).isEmpty();
    }

    @Test
    void configNamesParseAndListAllowedValues() {
        assertThat(ConfigName.parse(BalancerKind.class, " Least-Active ")).contains(BalancerKind.LEAST_ACTIVE);
        assertThat(ConfigName.parse(ConnectionPoolMode.class, "transaction")).contains(ConnectionPoolMode.TRANSACTION);
        assertThat(ConfigName.parse(EndpointMode.class, "rw")).isEmpty();
        assertThat(PolicyProblem.unknownValue("balancer", "rr", BalancerKind.class).toString())
                .isEqualTo("balancer: unknown value 'rr' (allowed: least-active, weighted)");
        assertThat(PolicyProblem.unknownValue("consistency", "strong", ConsistencyLevel.class).message())
                .isEqualTo("unknown value 'strong' (allowed: eventual, session, global)");
    }
}
