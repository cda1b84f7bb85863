package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** BEHAVIOUR §1 read-only endpoints. */
class ReadOnlyEndpointTest {

    private static final EndpointPolicy REPORTS = EndpointPolicy.defaults("reports").withMode(EndpointMode.READ_ONLY)
            .withWeights(new ReadWeights.Custom(Map.of("primary", 500, "ro1", 100, "ro2", 200)));

    private EndpointView view = EndpointView.of(Fixtures.cluster(), REPORTS);

    private RoutingSession connect() {
        RoutingSession session = RoutingSession.open(view);
        RouteDecision choice = Router.connect(session, view);
        assertThat(choice).isInstanceOf(RouteDecision.ToReplica.class);
        session.assignConnectionReplica(((RouteDecision.ToReplica) choice).nodeId());
        return session;
    }

    private RouteDecision route(RoutingSession session, String sql) {
        Statement statement = SqlClassifier.classify(sql);
        RouteDecision decision = Router.route(statement, session, view, ActiveRequests.NONE);
        if (!(decision instanceof RouteDecision.Reject)) {
            session.onStatementSent(statement, decision);
            session.onResponse(ServerStatus.AUTOCOMMIT);
        }
        return decision;
    }

    @Test
    void connectionsAreSpreadByWeightedRoundRobinAndThePrimaryTakesNoPart() {
        List<Integer> replicas = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            replicas.add(connect().connectionReplica().getAsInt());
        }
        // weights 100/200, ties to configuration order: ro1, ro2, ro2, then again
        assertThat(replicas).containsExactly(Fixtures.RO1, Fixtures.RO2, Fixtures.RO2, Fixtures.RO1, Fixtures.RO2,
                Fixtures.RO2);
    }

    @Test
    void everyStatementGoesToTheConnectionsReplica() {
        RoutingSession session = connect();
        int replica = session.connectionReplica().getAsInt();
        for (String sql : List.of("SELECT 1", "SELECT * FROM t FOR UPDATE", "BEGIN", "SELECT @a", "COMMIT",
                "SELECT LAST_INSERT_ID()", "SHOW WARNINGS", "/*FORCE_MASTER*/ SELECT 1", "CREATE TEMPORARY TABLE x (a INT)",
                "SELECT * FROM x", "DROP TABLE x")) {
            assertThat(route(session, sql)).as(sql).isInstanceOf(RouteDecision.ToReplica.class)
                    .extracting(d -> ((RouteDecision.ToReplica) d).nodeId()).isEqualTo(replica);
        }
        assertThat(route(session, "SET NAMES utf8")).isInstanceOf(RouteDecision.ToAllBackends.class);
        assertThat(route(session, "SELECT sluice_last_gtid()")).isInstanceOf(RouteDecision.AnswerLocally.class);
    }

    @Test
    void aPreparedSessionCommandRunsOnTheConnectionsReplicaNotThePrimary() {
        RoutingSession session = connect();
        int replica = session.connectionReplica().getAsInt();
        for (String sql : List.of("SET @a = ?", "SET NAMES utf8mb4", "SET SESSION sql_mode = ?")) {
            assertThat(Router.routeExecute(SqlClassifier.classify(sql), session, view, ActiveRequests.NONE)).as(sql)
                    .isInstanceOf(RouteDecision.ToReplica.class)
                    .extracting(d -> ((RouteDecision.ToReplica) d).nodeId()).isEqualTo(replica);
        }
    }

    @Test
    void writesAreRefusedWithTheSpecMessage() {
        RoutingSession session = connect();
        for (String sql : List.of("INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "DELETE FROM t", "REPLACE INTO t VALUES (1)",
                "CREATE TABLE t (a INT)", "DROP TABLE t", "TRUNCATE t", "LOAD DATA INFILE 'x' INTO TABLE t",
                "SET GLOBAL read_only = 0", "SELECT NEXTVAL(s)", "ALTER TABLE t ADD b INT")) {
            assertThat(route(session, sql)).as(sql).isEqualTo(new RouteDecision.Reject(
                    RouteError.readOnlyEndpoint("reports"), RouteReason.READ_ONLY_ENDPOINT));
        }
        assertThat(RouteError.readOnlyEndpoint("reports").message())
                .isEqualTo("endpoint 'reports' is read-only: writes are not accepted here");
        assertThat(RouteError.readOnlyEndpoint("reports").sqlState()).isEqualTo("HY000");
    }

    @Test
    void noUsableReplicaMeansAnErrorAtConnectTime() {
        view = view.next(view.topology().withState("ro1", NodeState.replica(ReplicationLag.BROKEN))
                .withState("ro2", NodeState.UNMONITORED), REPORTS);
        RouteDecision d = Router.connect(RoutingSession.open(view), view);
        assertThat(d).isEqualTo(new RouteDecision.Reject(RouteError.noReplica("reports"), RouteReason.NO_REPLICA));
    }

    @Test
    void aConnectionMovesWhenItsReplicaLeavesButFinishesItsTransactionFirst() {
        RoutingSession session = connect();
        int first = session.connectionReplica().getAsInt();
        String firstName = view.topology().node(first).orElseThrow().name();
        route(session, "BEGIN");
        session.onResponse(ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS);
        view = view.next(view.topology().withDraining(firstName, true), REPORTS);
        assertThat(route(session, "SELECT 1")).as("inside the transaction")
                .isEqualTo(RouteDecision.replica(first, RouteReason.CONNECTION_REPLICA));
        session.onResponse(ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS);
        route(session, "COMMIT");
        RouteDecision moved = route(session, "SELECT 1");
        assertThat(moved.reason()).isEqualTo(RouteReason.CONNECTION_REPLICA_MOVED);
        int second = ((RouteDecision.ToReplica) moved).nodeId();
        assertThat(second).isNotEqualTo(first);
        assertThat(session.connectionReplica()).hasValue(second);
        assertThat(route(session, "SELECT 2")).isEqualTo(RouteDecision.replica(second, RouteReason.CONNECTION_REPLICA));
    }
}
