package dev.sluice.routing;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;

/** A healthy primary + ro1 + ro2 cluster and helpers shared by the routing tests. */
public final class Fixtures {

    public static final int PRIMARY = 0;
    public static final int RO1 = 1;
    public static final int RO2 = 2;
    /** Every node has applied this position. */
    public static final GtidPosition APPLIED = MariaDbGtidList.parse("0-1-100").orElseThrow();

    private Fixtures() {
    }

    /** primary, ro1, ro2; replicas caught up at {@link #APPLIED}. */
    public static Topology cluster() {
        return Topology.empty()
                .withNode("primary", "127.0.0.1:3311", NodeRole.PRIMARY)
                .withNode("ro1", "127.0.0.1:3312", NodeRole.REPLICA)
                .withNode("ro2", "127.0.0.1:3313", NodeRole.REPLICA)
                .withState("primary", NodeState.primary(APPLIED))
                .withState("ro1", NodeState.replica(ReplicationLag.NONE, APPLIED))
                .withState("ro2", NodeState.replica(ReplicationLag.NONE, APPLIED));
    }

    public static EndpointView readWrite() {
        return EndpointView.of(cluster(), EndpointPolicy.defaults("rw"));
    }

    /** A fresh session whose previous statement ran on ro1 (so previous-target rules are visible). */
    public static RoutingSession sessionAfterReadOn(EndpointView view, int replica) {
        RoutingSession session = RoutingSession.open(view);
        session.onStatementSent(SqlClassifier.classify("SELECT 1"), RouteDecision.replica(replica, RouteReason.READ));
        session.onResponse(ServerStatus.AUTOCOMMIT);
        return session;
    }
}
