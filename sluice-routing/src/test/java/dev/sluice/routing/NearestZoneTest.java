package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.policy.BalancerKind;
import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §2, nearest zone: an endpoint that prefers Sluice's zone reads from the readable
 * replicas of that zone, and from the others only when none of them is readable.
 */
class NearestZoneTest {
    private static final int RO_A1 = 1;
    private static final int RO_A2 = 2;
    private static final int RO_B = 3;

    private static Topology cluster() {
        return Topology.empty()
                .withNode("primary", "127.0.0.1:3311", NodeRole.PRIMARY, Optional.of("a"), Node.DEFAULT_CAPACITY)
                .withNode("ro-a1", "127.0.0.1:3312", NodeRole.REPLICA, Optional.of("a"), Node.DEFAULT_CAPACITY)
                .withNode("ro-a2", "127.0.0.1:3313", NodeRole.REPLICA, Optional.of("a"), Node.DEFAULT_CAPACITY)
                .withNode("ro-b", "127.0.0.1:3314", NodeRole.REPLICA, Optional.of("b"), Node.DEFAULT_CAPACITY)
                .withState("primary", NodeState.primary(Fixtures.APPLIED))
                .withState("ro-a1", NodeState.replica(ReplicationLag.NONE, Fixtures.APPLIED))
                .withState("ro-a2", NodeState.replica(ReplicationLag.NONE, Fixtures.APPLIED))
                .withState("ro-b", NodeState.replica(ReplicationLag.NONE, Fixtures.APPLIED));
    }

    /** The replicas that 60 reads of new sessions went to (round robin, so every candidate shows). */
    private static Set<Integer> readsGoTo(EndpointView view) {
        Set<Integer> targets = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            RoutingSession session = RoutingSession.open(view);
            RouteDecision d = Router.route(SqlClassifier.classify("SELECT 1"), session, view, ActiveRequests.NONE);
            targets.add(d instanceof RouteDecision.ToReplica r ? r.nodeId() : -1);
        }
        return targets;
    }

    private static EndpointView readWrite(Optional<String> zone) {
        return EndpointView.of(cluster(), EndpointPolicy.defaults("rw").withBalancer(BalancerKind.WEIGHTED).withPreferredZone(zone));
    }

    @Test
    void readsStayInTheZoneWhileAReplicaThereIsReadable() {
        assertThat(readsGoTo(readWrite(Optional.of("a")))).containsExactlyInAnyOrder(RO_A1, RO_A2);
        assertThat(readsGoTo(readWrite(Optional.of("b")))).containsExactly(RO_B);
    }

    @Test
    void withoutAPreferenceEveryReadableReplicaReads() {
        assertThat(readsGoTo(readWrite(Optional.empty()))).containsExactlyInAnyOrder(RO_A1, RO_A2, RO_B);
    }

    @Test
    void readsLeaveTheZoneWhenNoReplicaThereIsReadableAndComeBack() {
        EndpointView view = readWrite(Optional.of("b"));
        EndpointView lagging = view.next(view.topology().withState("ro-b", NodeState.replica(ReplicationLag.ofSeconds(99),
                Fixtures.APPLIED)), view.policy());
        assertThat(readsGoTo(lagging)).containsExactlyInAnyOrder(RO_A1, RO_A2);
        EndpointView caughtUp = lagging.next(view.topology(), view.policy());
        assertThat(readsGoTo(caughtUp)).containsExactly(RO_B);
    }

    @Test
    void aZoneWithNoReplicaOfTheEndpointChangesNothing() {
        assertThat(readsGoTo(readWrite(Optional.of("c")))).containsExactlyInAnyOrder(RO_A1, RO_A2, RO_B);
    }

    @Test
    void aReadOnlyEndpointPrefersTheZoneToo() {
        EndpointView view = EndpointView.of(cluster(), EndpointPolicy.defaults("ro").withMode(EndpointMode.READ_ONLY)
                .withPreferredZone(Optional.of("b")));
        assertThat(readsGoTo(view)).containsExactly(RO_B);
    }
}
