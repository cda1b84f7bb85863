package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.BalancerKind;
import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.policy.TimeoutAction;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Read-write endpoint decisions (BEHAVIOUR §2–§6, §8). */
class RouterTest {

    private static final int IDLE = ServerStatus.AUTOCOMMIT;
    private static final int IN_TRANSACTION = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;

    private EndpointView view = Fixtures.readWrite();
    private RoutingSession session = RoutingSession.open(view);

    private RouteDecision route(String sql) {
        return Router.route(SqlClassifier.classify(sql), session, view, ActiveRequests.NONE);
    }

    /** Routes, sends and answers {@code sql} like the server would. */
    private RouteDecision run(String sql, int flags) {
        Statement statement = SqlClassifier.classify(sql);
        RouteDecision decision = Router.route(statement, session, view, ActiveRequests.NONE);
        session.onStatementSent(statement, decision);
        session.onResponse(flags);
        return decision;
    }

    private void withPolicy(EndpointPolicy policy) {
        view = view.next(view.topology(), policy);
        session = RoutingSession.open(view);
    }

    private static GtidPosition gtid(String text) {
        return MariaDbGtidList.parse(text).orElseThrow();
    }

    @Test
    void readsSpreadOverReplicasAndNeverReachAWeightZeroPrimary() {
        int[] counts = new int[3];
        Statement read = SqlClassifier.classify("SELECT * FROM t");
        for (int i = 0; i < 100; i++) {
            // long reads: every one still runs when the next arrives
            RouteDecision d = Router.route(read, session, view, id -> counts[id]);
            assertThat(d).isInstanceOf(RouteDecision.ToReplica.class);
            counts[((RouteDecision.ToReplica) d).nodeId()]++;
        }
        assertThat(counts[Fixtures.PRIMARY]).isZero();
        assertThat(counts[Fixtures.RO1]).isEqualTo(50);
        assertThat(counts[Fixtures.RO2]).isEqualTo(50);
    }

    @Test
    void leastActivePrefersTheIdleReplica() {
        ActiveRequests busyRo1 = id -> id == Fixtures.RO1 ? 5 : 0;
        RouteDecision d = Router.route(SqlClassifier.classify("SELECT 1"), session, view, busyRo1);
        assertThat(d).isEqualTo(RouteDecision.replica(Fixtures.RO2, RouteReason.READ));
    }

    @Test
    void thePrimaryTakesReadsByItsWeight() {
        withPolicy(EndpointPolicy.defaults("rw").withBalancer(BalancerKind.WEIGHTED)
                .withWeights(new ReadWeights.Custom(Map.of("primary", 100, "ro1", 200, "ro2", 200))));
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.READ));
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.replica(Fixtures.RO1, RouteReason.READ));
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.replica(Fixtures.RO2, RouteReason.READ));
    }

    @Test
    void withoutAUsableReplicaReadsFallBackToThePrimary() {
        view = view.next(view.topology().withState("ro1", NodeState.replica(ReplicationLag.ofSeconds(99)))
                .withState("ro2", NodeState.replica(ReplicationLag.BROKEN)), view.policy());
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.FALLBACK_NO_REPLICA));
        assertThat(route("/*FORCE_SLAVE*/ SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.FALLBACK_NO_REPLICA));
    }

    @Test
    void transactionsRunOnThePrimary() {
        assertThat(run("BEGIN", IN_TRANSACTION)).isEqualTo(RouteDecision.primary(RouteReason.TRANSACTION_CONTROL));
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.IN_TRANSACTION));
        assertThat(route("/*FORCE_SLAVE*/ SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.IN_TRANSACTION));
        assertThat(route("/*FORCE_MASTER*/ SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.HINT));
        run("COMMIT", IDLE);
        assertThat(route("SELECT 1")).isInstanceOf(RouteDecision.ToReplica.class);
        run("SET autocommit = 0", 0);
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.IN_TRANSACTION));
    }

    @Test
    void transactionSplittingSendsReadsBeforeTheFirstWriteToReplicas() {
        withPolicy(EndpointPolicy.defaults("rw").withTransactionSplitting(true));
        run("BEGIN", IN_TRANSACTION);
        assertThat(route("SELECT 1")).as("repeatable read: no splitting")
                .isEqualTo(RouteDecision.primary(RouteReason.IN_TRANSACTION));
        run("COMMIT", IDLE);
        run("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", IDLE);
        run("BEGIN", IN_TRANSACTION);
        RouteDecision read = run("SELECT 1", IDLE);
        assertThat(read).isInstanceOf(RouteDecision.ToReplica.class);
        assertThat(read.reason()).isEqualTo(RouteReason.TRANSACTION_SPLIT);
        assertThat(route("SELECT * FROM t FOR UPDATE")).isEqualTo(RouteDecision.primary(RouteReason.WRITE));
        run("INSERT INTO t VALUES (1)", IN_TRANSACTION);
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.IN_TRANSACTION));
        run("COMMIT", IDLE);
        run("SET autocommit = 0", 0);
        assertThat(route("SELECT 1").reason()).as("autocommit=0 transactions split too")
                .isEqualTo(RouteReason.TRANSACTION_SPLIT);
    }

    @Test
    void temporaryTablesLockedTablesAndPinning() {
        run("CREATE TEMPORARY TABLE tmp (a INT)", IDLE);
        assertThat(route("SELECT * FROM tmp")).isEqualTo(RouteDecision.primary(RouteReason.TEMPORARY_TABLE));
        assertThat(route("SELECT * FROM other")).isInstanceOf(RouteDecision.ToReplica.class);
        run("LOCK TABLES other READ", IDLE);
        assertThat(route("SELECT * FROM other")).isEqualTo(RouteDecision.primary(RouteReason.LOCKED_TABLES));
        run("UNLOCK TABLES", IDLE);
        run("HANDLER other OPEN", IDLE);
        assertThat(route("SELECT * FROM other")).isEqualTo(RouteDecision.primary(RouteReason.PINNED));
        assertThat(route("SET NAMES utf8")).isEqualTo(RouteDecision.primary(RouteReason.PINNED));
        session.reset();
        assertThat(route("SELECT * FROM tmp")).isInstanceOf(RouteDecision.ToReplica.class);
    }

    @Test
    void previousTargetFollowsThePreviousStatement() {
        RouteDecision.ToReplica read = (RouteDecision.ToReplica) run("SELECT SQL_CALC_FOUND_ROWS * FROM t", IDLE);
        assertThat(route("SELECT FOUND_ROWS()")).isEqualTo(RouteDecision.replica(read.nodeId(),
                RouteReason.PREVIOUS_TARGET));
        run("INSERT INTO t VALUES (1)", IDLE);
        assertThat(route("SHOW WARNINGS")).isEqualTo(RouteDecision.primary(RouteReason.PREVIOUS_TARGET));
    }

    @Test
    void userVariableReadsStayOnThePrimaryOnceStoredCodeMayHaveAssignedThemThere() {
        run("SET @sum = 0", IDLE);
        assertThat(route("SELECT @sum")).as("SET gave every backend its value").isInstanceOf(RouteDecision.ToReplica.class);
        // A trigger of t1 may run SET @sum = @sum + NEW.val on the primary alone.
        run("INSERT INTO t1 VALUES (10), (20)", IDLE);
        assertThat(route("SELECT @sum")).isEqualTo(RouteDecision.primary(RouteReason.SESSION_DEPENDENT));
        assertThat(route("SELECT 1")).as("reads without user variables still split").isInstanceOf(RouteDecision.ToReplica.class);
        assertThat(session.userVariablesOnPrimaryOnly()).as("no assignment known: a switchover may move the session")
                .isFalse();
        session.reset();
        assertThat(route("SELECT @sum")).isInstanceOf(RouteDecision.ToReplica.class);
        run("SELECT my_counter()", IDLE);
        assertThat(route("SELECT @calls")).as("after a stored function").isEqualTo(
                RouteDecision.primary(RouteReason.SESSION_DEPENDENT));
    }

    @Test
    void sessionVariableReadsStayOnThePrimaryOnceAStoredFunctionMayHaveSetThemThere() {
        run("SET @@sort_buffer_size = 400000", IDLE);
        assertThat(route("SELECT @@sort_buffer_size")).as("the SET reached every backend")
                .isInstanceOf(RouteDecision.ToReplica.class);
        run("INSERT INTO t1 VALUES (1)", IDLE);
        assertThat(route("SELECT @@sort_buffer_size")).as("a write's triggers are not counted")
                .isInstanceOf(RouteDecision.ToReplica.class);
        // A stored function may run SET @@sort_buffer_size = i on the primary alone.
        run("SELECT * FROM t2 WHERE a = @@sort_buffer_size AND p1(@@sort_buffer_size + 1) > a - 1", IDLE);
        assertThat(route("SELECT CONCAT(@@sort_buffer_size)")).isEqualTo(
                RouteDecision.primary(RouteReason.SESSION_DEPENDENT));
        assertThat(route("SELECT @@session.sql_mode")).isEqualTo(RouteDecision.primary(RouteReason.SESSION_DEPENDENT));
        assertThat(route("SELECT 1")).as("reads without session variables still split")
                .isInstanceOf(RouteDecision.ToReplica.class);
        assertThat(route("SELECT @@global.sort_buffer_size")).as("no function sets a global for its session")
                .isInstanceOf(RouteDecision.ToReplica.class);
        assertThat(route("SELECT @@server_id, @@hostname")).as("asks which node answers")
                .isInstanceOf(RouteDecision.ToReplica.class);
        assertThat(route("/*FORCE_SLAVE*/ SELECT @@sort_buffer_size")).as("the hint is taken at its word")
                .isInstanceOf(RouteDecision.ToReplica.class);
        session.reset();
        assertThat(route("SELECT @@sort_buffer_size")).isInstanceOf(RouteDecision.ToReplica.class);
    }

    @Test
    void sessionCommandsGoEverywhereExceptThroughThePreparedProtocol() {
        Statement names = SqlClassifier.classify("SET NAMES utf8mb4");
        assertThat(Router.route(names, session, view, ActiveRequests.NONE))
                .isEqualTo(new RouteDecision.ToAllBackends(RouteReason.SESSION_COMMAND));
        assertThat(Router.routeExecute(names, session, view, ActiveRequests.NONE))
                .isEqualTo(RouteDecision.primary(RouteReason.PREPARED_SESSION_COMMAND));
        assertThat(Router.routeExecute(SqlClassifier.classify("SELECT ?"), session, view, ActiveRequests.NONE))
                .isInstanceOf(RouteDecision.ToReplica.class);
        assertThat(route("SELECT sluice_last_gtid()")).isEqualTo(new RouteDecision.AnswerLocally(LocalAnswer.LAST_GTID));
    }

    @Test
    void sessionConsistencyPrefersAReplicaThatHasTheSessionsGtid() {
        Topology t = view.topology().withState("ro1", NodeState.replica(ReplicationLag.NONE, gtid("0-1-200")));
        withPolicy(EndpointPolicy.defaults("rw").withConsistency(ConsistencyLevel.SESSION));
        view = view.next(t, view.policy());
        assertThat(route("SELECT 1").reason()).as("no write yet: nothing required").isEqualTo(RouteReason.READ);
        session.onCommittedGtid(gtid("0-1-150"));
        for (int i = 0; i < 5; i++) {
            assertThat(run("SELECT 1", IDLE)).isEqualTo(RouteDecision.replica(Fixtures.RO1, RouteReason.READ));
        }
        session.onCommittedGtid(gtid("0-1-300"));
        RouteDecision wait = route("SELECT 1");
        assertThat(wait).isEqualTo(new RouteDecision.ToReplica(Fixtures.RO1, RouteReason.CONSISTENCY_WAIT,
                new ConsistencyRequirement.WaitFor(gtid("0-1-300"), Duration.ofMillis(10), TimeoutAction.PRIMARY)));
        assertThat(route("/*FORCE_SLAVE*/ SELECT 1").reason()).as("hints beat consistency").isEqualTo(RouteReason.HINT);
    }

    @Test
    void aSessionWhoseOwnPositionIsNotKnownReadsThePrimaryUnderSessionConsistencyOnly() {
        Topology t = view.topology().withState("ro1", NodeState.replica(ReplicationLag.NONE, gtid("0-1-200")))
                .withState("ro2", NodeState.replica(ReplicationLag.NONE, gtid("0-1-200")));
        // level, GTID learned after the unreadable answer, what a plain read gets
        Object[][] table = {
            {ConsistencyLevel.SESSION, null, RouteReason.CONSISTENCY_POSITION_UNKNOWN},
            {ConsistencyLevel.SESSION, "0-1-160", RouteReason.READ},
            {ConsistencyLevel.EVENTUAL, null, RouteReason.READ},
        };
        for (Object[] row : table) {
            withPolicy(EndpointPolicy.defaults("rw").withConsistency((ConsistencyLevel) row[0]));
            view = view.next(t, view.policy());
            session.onCommittedGtid(gtid("0-1-150"));
            session.onSessionStateUnreadable();
            if (row[1] != null) {
                session.onCommittedGtid(gtid((String) row[1]));
            }
            assertThat(route("SELECT 1").reason()).as("%s, then %s", row[0], row[1]).isEqualTo(row[2]);
        }
        withPolicy(EndpointPolicy.defaults("rw").withConsistency(ConsistencyLevel.SESSION));
        view = view.next(t, view.policy());
        session.onSessionStateUnreadable();
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.CONSISTENCY_POSITION_UNKNOWN));
        assertThat(route("/*FORCE_SLAVE*/ SELECT 1").reason()).as("a hint still beats the level").isEqualTo(RouteReason.HINT);
        session.reset();
        assertThat(route("SELECT 1").reason()).as("a reset session has no writes to see").isEqualTo(RouteReason.READ);
    }

    @Test
    void aZeroTimeoutAppliesTheTimeoutActionAtOnce() {
        withPolicy(EndpointPolicy.defaults("rw").withConsistency(ConsistencyLevel.SESSION)
                .withConsistencyTimeout(Duration.ZERO));
        session.onCommittedGtid(gtid("0-1-999"));
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.CONSISTENCY_TIMEOUT));
        withPolicy(view.policy().withTimeoutAction(TimeoutAction.ERROR));
        session.onCommittedGtid(gtid("0-1-999"));
        assertThat(route("SELECT 1")).isEqualTo(new RouteDecision.Reject(RouteError.consistencyTimeout(),
                RouteReason.CONSISTENCY_TIMEOUT));
        assertThat(RouteError.consistencyTimeout().message()).isEqualTo("wait replication complete timeout, please retry");
    }

    @Test
    void globalConsistencyAsksForThePrimaryPositionFirst() {
        withPolicy(EndpointPolicy.defaults("rw").withConsistency(ConsistencyLevel.GLOBAL));
        Statement read = SqlClassifier.classify("SELECT 1");
        assertThat(Router.route(read, session, view, ActiveRequests.NONE)).isEqualTo(
                new RouteDecision.NeedPrimaryPosition(Duration.ofMillis(10), TimeoutAction.PRIMARY,
                        java.util.Optional.empty()));
        assertThat(Router.routeAtPrimaryPosition(read, session, view, ActiveRequests.NONE, gtid("0-1-100")))
                .isInstanceOf(RouteDecision.ToReplica.class).extracting(RouteDecision::reason).isEqualTo(RouteReason.READ);
        assertThat(Router.routeAtPrimaryPosition(read, session, view, ActiveRequests.NONE, gtid("0-1-101")).reason())
                .isEqualTo(RouteReason.CONSISTENCY_WAIT);
        assertThat(route("INSERT INTO t VALUES (1)")).isEqualTo(RouteDecision.primary(RouteReason.WRITE));
    }

    @Test
    void aConsistencyTokenHintWorksAtEveryLevel() {
        RouteDecision d = route("/*CONSISTENT_WITH=0-1-101*/ SELECT 1");
        assertThat(d.reason()).isEqualTo(RouteReason.CONSISTENCY_WAIT);
        assertThat(((RouteDecision.ToReplica) d).consistency())
                .isEqualTo(new ConsistencyRequirement.WaitFor(gtid("0-1-101"), Duration.ofMillis(10),
                        TimeoutAction.PRIMARY));
        assertThat(route("/*CONSISTENT_WITH=0-1-100*/ SELECT 1").reason()).isEqualTo(RouteReason.READ);
    }

    @Test
    void theWaitGoesToTheReplicaClosestToThePosition() {
        Topology t = view.topology().withState("ro1", NodeState.replica(ReplicationLag.NONE, gtid("0-1-10")))
                .withState("ro2", NodeState.replica(ReplicationLag.ofSeconds(5), gtid("0-1-95")));
        view = view.next(t, view.policy());
        RouteDecision d = route("/*CONSISTENT_WITH=0-1-100*/ SELECT 1");
        assertThat(d).extracting(x -> ((RouteDecision.ToReplica) x).nodeId()).isEqualTo(Fixtures.RO2);
    }

    @Test
    void existingSessionsKeepTheirWeightsNewSessionsTakeTheNewOnes() {
        EndpointPolicy ro1Drained = EndpointPolicy.defaults("rw")
                .withWeights(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 0, "ro2", 100)));
        RoutingSession old = session;
        view = view.next(view.topology(), ro1Drained);
        RoutingSession fresh = RoutingSession.open(view);
        ActiveRequests ro2Busy = id -> id == Fixtures.RO2 ? 100 : 0;
        Statement read = SqlClassifier.classify("SELECT 1");
        assertThat(Router.route(read, old, view, ro2Busy)).isEqualTo(RouteDecision.replica(Fixtures.RO1, RouteReason.READ));
        assertThat(Router.route(read, fresh, view, ro2Busy)).isEqualTo(RouteDecision.replica(Fixtures.RO2, RouteReason.READ));
        // weight 0 -> 100 does not add ro1 back to the fresh session
        view = view.next(view.topology(), EndpointPolicy.defaults("rw"));
        assertThat(Router.route(read, fresh, view, id -> id == Fixtures.RO2 ? 100 : 0))
                .isEqualTo(RouteDecision.replica(Fixtures.RO2, RouteReason.READ));
    }

    @Test
    void removedAndDrainingNodesTakeNoMoreReads() {
        view = view.next(view.topology().withoutNode("ro1").withDraining("ro2", true), view.policy());
        assertThat(route("SELECT 1")).isEqualTo(RouteDecision.primary(RouteReason.FALLBACK_NO_REPLICA));
    }
}
