package dev.sluice.routing.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.EndpointView;
import dev.sluice.routing.Fixtures;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.sql.IsolationLevel;
import dev.sluice.routing.sql.LockCause;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.TableName;
import dev.sluice.routing.topology.Topology;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoutingSessionTest {

    private static final RouteDecision PRIMARY = RouteDecision.primary(RouteReason.WRITE);
    private static final RouteDecision ALL = new RouteDecision.ToAllBackends(RouteReason.SESSION_COMMAND);
    private static final int IDLE = ServerStatus.AUTOCOMMIT;
    private static final int IN_TRANSACTION = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;

    private final EndpointView view = Fixtures.readWrite();
    private final RoutingSession session = RoutingSession.open(view);

    /** Sends {@code sql} as {@code decision} and answers OK with {@code flags}. */
    private void ok(String sql, RouteDecision decision, int flags) {
        session.onStatementSent(SqlClassifier.classify(sql), decision);
        session.onResponse(flags);
    }

    private void failed(String sql, RouteDecision decision) {
        session.onStatementSent(SqlClassifier.classify(sql), decision);
        session.onError();
    }

    @Test
    void beginCountsAtOnceAndTheFlagsEndIt() {
        session.onStatementSent(SqlClassifier.classify("BEGIN"), PRIMARY);
        assertThat(session.inTransaction()).as("before the answer").isTrue();
        session.onResponse(IN_TRANSACTION);
        assertThat(session.atTransactionBoundary()).isFalse();
        session.onStatementSent(SqlClassifier.classify("COMMIT"), PRIMARY);
        assertThat(session.inTransaction()).as("an end waits for the flags").isTrue();
        session.onResponse(IDLE);
        assertThat(session.inTransaction()).isFalse();
        assertThat(session.atTransactionBoundary()).isTrue();
    }

    @Test
    void autocommitOffKeepsTheSessionInATransactionUntilSwitchedBack() {
        session.onStatementSent(SqlClassifier.classify("SET autocommit=0"), ALL);
        assertThat(session.inTransaction()).isTrue();
        session.onResponse(0);
        ok("COMMIT", PRIMARY, 0);
        assertThat(session.inTransaction()).as("autocommit still off").isTrue();
        ok("SET autocommit=1", ALL, IDLE);
        assertThat(session.inTransaction()).isFalse();
        assertThat(session.autocommit()).isTrue();
    }

    @Test
    void aReplicasFlagsSayNothingAboutTheClientsTransaction() {
        ok("BEGIN", PRIMARY, IN_TRANSACTION);
        ok("SELECT 1", RouteDecision.replica(Fixtures.RO1, RouteReason.TRANSACTION_SPLIT), IDLE);
        assertThat(session.inTransaction()).isTrue();
    }

    @Test
    void moreResultsIsNotABoundary() {
        ok("CALL p()", PRIMARY, IDLE | ServerStatus.MORE_RESULTS_EXISTS);
        assertThat(session.atTransactionBoundary()).isFalse();
        session.onResponse(IDLE);
        assertThat(session.atTransactionBoundary()).isTrue();
    }

    @Test
    void withAutocommitOffACommitStartsANewSplittableTransaction() {
        ok("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", ALL, IDLE);
        ok("SET autocommit=0", ALL, 0);
        ok("SELECT 1", RouteDecision.replica(Fixtures.RO1, RouteReason.TRANSACTION_SPLIT), 0);
        assertThat(session.transactionSplittable()).isTrue();
        ok("UPDATE t SET a = 1", PRIMARY, ServerStatus.IN_TRANS);
        assertThat(session.transactionSplittable()).isFalse();
        ok("COMMIT", PRIMARY, 0);
        assertThat(session.inTransaction()).as("autocommit still off").isTrue();
        assertThat(session.transactionSplittable()).as("the next transaction has not written").isTrue();
    }

    @Test
    void transactionSplittingEndsAtTheFirstWrite() {
        ok("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", ALL, IDLE);
        assertThat(session.isolationLevel()).isEqualTo(IsolationLevel.READ_COMMITTED);
        ok("BEGIN", PRIMARY, IN_TRANSACTION);
        assertThat(session.transactionSplittable()).isTrue();
        ok("SELECT 1", RouteDecision.replica(Fixtures.RO1, RouteReason.TRANSACTION_SPLIT), IDLE);
        assertThat(session.transactionSplittable()).isTrue();
        ok("UPDATE t SET a = 1", PRIMARY, IN_TRANSACTION);
        assertThat(session.transactionSplittable()).isFalse();
        ok("COMMIT", PRIMARY, IDLE);
        ok("START TRANSACTION WITH CONSISTENT SNAPSHOT", PRIMARY, IN_TRANSACTION);
        assertThat(session.transactionSplittable()).as("snapshot lives on the primary").isFalse();
    }

    @Test
    void nextTransactionIsolationLastsOneTransaction() {
        ok("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", ALL, IDLE);
        assertThat(session.isolationLevel()).isEqualTo(IsolationLevel.READ_COMMITTED);
        assertThat(session.replayHistory()).as("one-shot: not replayed").isEmpty();
        ok("BEGIN", PRIMARY, IN_TRANSACTION);
        ok("COMMIT", PRIMARY, IDLE);
        assertThat(session.isolationLevel()).isEqualTo(IsolationLevel.REPEATABLE_READ);
    }

    @Test
    void historyKeepsTheLastValueOfEachVariableInOrder() {
        ok("SET NAMES latin1", ALL, IDLE);
        ok("USE db1", ALL, IDLE);
        ok("SET sql_mode = 'ANSI'", ALL, IDLE);
        ok("SET time_zone = '+01:00'", ALL, IDLE);
        ok("SET NAMES utf8mb4", ALL, IDLE);
        ok("USE db2", ALL, IDLE);
        ok("SET sql_mode = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')", ALL, IDLE);
        ok("SET CHARACTER SET utf8", ALL, IDLE);
        failed("SET time_zone = 'nowhere'", ALL);
        assertThat(replayTexts(session)).containsExactly(
                "SET sql_mode = 'ANSI'",
                "SET time_zone = '+01:00'",
                "SET NAMES utf8mb4",
                "USE db2",
                "SET sql_mode = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')",
                "SET CHARACTER SET utf8");
        assertThat(session.schema()).contains("db2");
        ok("SET sql_mode = ''", ALL, IDLE);
        assertThat(replayTexts(session)).containsExactly("SET time_zone = '+01:00'", "SET NAMES utf8mb4",
                "USE db2", "SET CHARACTER SET utf8", "SET sql_mode = ''");
        session.onSchemaChanged("db3");
        assertThat(replayTexts(session)).endsWith("USE `db3`");
        assertThat(replayTexts(session)).doesNotContain("USE db2");
    }

    @Test
    void aHistoryThatOverflowsPinsTheSessionToThePrimary() {
        for (int i = 0; i <= SessionHistory.MAX_COMMANDS; i++) {
            assertThat(session.pinnedToPrimary()).isFalse();
            ok("SET sql_mode = CONCAT(@@sql_mode, '')", ALL, IDLE);
        }
        assertThat(session.pinnedToPrimary()).isTrue();
        session.reset();
        assertThat(session.pinnedToPrimary()).isFalse();
    }

    @Test
    void temporaryTablesAreTrackedOnlyWhenCreated() {
        failed("CREATE TEMPORARY TABLE lost (a INT)", PRIMARY);
        ok("CREATE TEMPORARY TABLE Tmp (a INT)", PRIMARY, IDLE);
        ok("CREATE TEMPORARY TABLE db.other (a INT)", PRIMARY, IDLE);
        assertThat(session.temporaryTables()).containsExactly(TableName.of("tmp"), TableName.of("db", "other"));
        assertThat(session.touchesTemporaryTable(SqlClassifier.classify("SELECT * FROM tmp WHERE a = 1"))).isTrue();
        assertThat(session.touchesTemporaryTable(SqlClassifier.classify("SELECT * FROM x JOIN db.other"))).isTrue();
        assertThat(session.touchesTemporaryTable(SqlClassifier.classify("SELECT * FROM lost"))).isFalse();
        assertThat(session.touchesTemporaryTable(SqlClassifier.classify("SELECT tmp FROM t"))).isFalse();
        ok("DROP TABLE tmp", PRIMARY, IDLE);
        assertThat(session.temporaryTables()).containsExactly(TableName.of("db", "other"));
        assertThat(session.touchesTemporaryTable(SqlClassifier.classify("SELECT * FROM tmp"))).isFalse();
        assertThat(session.lockCauses()).contains(LockCause.TEMPORARY_TABLE);
    }

    @Test
    void pinsLocksAndResetClearsThem() {
        ok("SET @a = 1", PRIMARY, IDLE);
        ok("CALL p()", PRIMARY, IDLE);
        ok("LOCK TABLES t READ", PRIMARY, IDLE);
        assertThat(session.pinnedToPrimary()).isTrue();
        assertThat(session.tablesLocked()).isTrue();
        assertThat(session.lockCauses()).containsExactlyInAnyOrder(LockCause.USER_VARIABLE,
                LockCause.STORED_PROCEDURE, LockCause.LOCK_TABLES);
        ok("UNLOCK TABLES", PRIMARY, IDLE);
        assertThat(session.tablesLocked()).isFalse();
        session.onCommittedGtid(MariaDbGtidList.parse("0-1-5").orElseThrow());
        session.onCommittedGtid(MariaDbGtidList.parse("1-1-2").orElseThrow());
        assertThat(session.lastGtid().map(Object::toString)).contains("0-1-5,1-1-2");
        session.reset();
        assertThat(session.pinnedToPrimary()).isFalse();
        assertThat(session.lockCauses()).isEmpty();
        assertThat(session.lastGtid()).isEmpty();
        assertThat(session.previousReplica()).isEmpty();
        assertThat(session.replayHistory()).isEmpty();
    }

    @Test
    void previousTargetFollowsDecisions() {
        ok("SELECT 1", RouteDecision.replica(Fixtures.RO2, RouteReason.READ), IDLE);
        assertThat(session.previousReplica()).hasValue(Fixtures.RO2);
        ok("SET NAMES utf8", ALL, IDLE);
        assertThat(session.previousReplica()).as("all backends: the client saw the primary").isEmpty();
    }

    @Test
    void keepsItsWeightsWhenThePolicyChanges() {
        EndpointView reweighted = view.next(view.topology(), EndpointPolicy.defaults("rw")
                .withWeights(new ReadWeights.Custom(Map.of("ro1", 0, "ro2", 500, "primary", 10))));
        RoutingSession fresh = RoutingSession.open(reweighted);
        assertThat(session.weightOf(Fixtures.RO1)).isEqualTo(100);
        assertThat(session.weightOf(Fixtures.PRIMARY)).isZero();
        assertThat(fresh.weightOf(Fixtures.RO1)).isZero();
        assertThat(fresh.weightOf(Fixtures.RO2)).isEqualTo(500);
    }

    @Test
    void leavesRemovedAndDrainingNodesAtATransactionBoundary() {
        Topology changed = view.topology().withoutNode("ro1").withDraining("ro2", true);
        ok("BEGIN", PRIMARY, IN_TRANSACTION);
        assertThat(session.leaveRetiredNodes(changed)).as("not inside a transaction").isEmpty();
        ok("COMMIT", PRIMARY, IDLE);
        assertThat(session.leaveRetiredNodes(changed)).containsExactly(Fixtures.RO1, Fixtures.RO2);
        assertThat(session.includes(Fixtures.RO1)).isFalse();
        assertThat(session.includes(Fixtures.PRIMARY)).isTrue();
        assertThat(session.leaveRetiredNodes(changed)).isEqualTo(List.of());
    }

    private static java.util.List<String> replayTexts(RoutingSession session) {
        return session.replayHistory().stream().map(dev.sluice.routing.sql.SessionCommand::sql).toList();
    }
}
