package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.backend.FakeBackend;
import dev.sluice.server.runtime.SessionStanding;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session during a switchover (BEHAVIOUR §10): while the hold is in force its commands for the
 * primary wait and then run on the new primary, over a new connection that carries its state; a
 * transaction's statements and a session holding what cannot move go on on the old primary.
 */
class SwitchoverHoldTest {
    private static final int IN_TRANS = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;

    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.proxy.primaryHold().release();
        h.close();
    }

    private void onPrimary(String sql, int status) {
        h.query(sql);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(sql);
        primary.ok(status);
        h.ok();
    }

    private int id(String node) {
        return h.proxy.topology().node(node).orElseThrow().id();
    }

    private SessionStanding standing() {
        var f = h.session.standing(id("primary"));
        h.runTasks();
        return f.join();
    }

    /** What the switchover does to Sluice's view: ro1 the writable primary, the old one its replica. */
    private void ro1BecomesThePrimary() {
        h.topology.update(t -> role(role(t, "primary", NodeRole.REPLICA, true), "ro1", NodeRole.PRIMARY, false));
    }

    private static Topology role(Topology t, String name, NodeRole role, boolean readOnly) {
        return t.withNodeChanged(name, n -> new Node(n.id(), n.name(), n.address(), role, n.zone(), n.capacity(),
                new NodeState(true, readOnly, readOnly, readOnly, n.state().lag(), n.state().position()),
                n.draining()));
    }

    @Test
    void aWriteDuringTheHoldWaitsThenRunsOnTheNewPrimaryWithTheSessionsState() {
        onPrimary("SET sql_mode = 'ANSI'", ServerStatus.AUTOCOMMIT);
        FakeBackend old = h.backend("primary");
        h.proxy.primaryHold().hold();

        h.query("UPDATE t SET a = 1");
        h.runTasks();
        assertThat(old.hasCommand()).as("the write waits at the proxy").isFalse();
        assertThat(h.hasAnswer()).isFalse();
        assertThat(standing().free()).as("a parked command does not hold the primary").isTrue();

        ro1BecomesThePrimary();
        h.session.leaveFormerPrimary(id("primary"));
        h.proxy.primaryHold().release();
        h.runTasks();
        assertThat(old.isOpen()).as("the old primary's connection is closed").isFalse();
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).as("the session's state is replayed first").isEqualTo("SET sql_mode = 'ANSI'");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("UPDATE t SET a = 1");
        ro1.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
    }

    @Test
    void aFailoverEndsATransactionOpenOnAFrozenPrimaryAtItsNextStatementAndAnIdleSessionMoves() {
        onPrimary("BEGIN", IN_TRANS);
        onPrimary("UPDATE t SET a = 1", IN_TRANS);
        FakeBackend old = h.backend("primary");
        h.proxy.primaryHold().hold();
        h.session.abandonFailedPrimary(id("primary"));
        h.runTasks();
        assertThat(old.isOpen()).as("the frozen primary's connection is dropped").isFalse();
        assertThat(standing().transactionOpen()).as("a lost transaction holds nothing up").isFalse();
        ro1BecomesThePrimary();
        h.proxy.primaryHold().release();
        h.query("COMMIT");
        h.runTasks();
        assertThat(h.error()).startsWith("1105 the transaction open on the primary 'primary' was lost")
                .contains("failover");
        assertThat(h.clientOpen()).as("the rest of the transaction never runs on the new primary").isFalse();
        assertThat(h.nodes.of("ro1")).as("nothing reaches the new primary").isEmpty();
    }

    @Test
    void aFailoverFailsAStatementStillRunningOnAFrozenPrimaryWithoutSendingItAgain() {
        onPrimary("SET sql_mode = 'ANSI'", ServerStatus.AUTOCOMMIT);
        h.query("UPDATE t SET a = 1");
        FakeBackend old = h.backend("primary");
        assertThat(old.takeClientCommand()).isEqualTo("UPDATE t SET a = 1");
        h.proxy.primaryHold().hold();
        h.session.abandonFailedPrimary(id("primary"));
        h.runTasks();
        assertThat(h.error()).startsWith("1105 Lost connection to the primary 'primary'")
                .contains("does not send it again");
        ro1BecomesThePrimary();
        h.proxy.primaryHold().release();
        h.query("UPDATE t SET a = 2");
        h.runTasks();
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).as("the session's state is replayed first").isEqualTo("SET sql_mode = 'ANSI'");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).as("only the next write, not the lost one").isEqualTo("UPDATE t SET a = 2");
        ro1.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
    }

    @Test
    void aTransactionsStatementsGoOnDuringTheHold() {
        onPrimary("BEGIN", IN_TRANS);
        assertThat(standing().transactionOpen()).isTrue();
        h.proxy.primaryHold().hold();
        onPrimary("UPDATE t SET a = 1", IN_TRANS);
        onPrimary("COMMIT", ServerStatus.AUTOCOMMIT);
        assertThat(standing().free()).isTrue();

        h.query("UPDATE t SET a = 2");
        h.runTasks();
        assertThat(h.backend("primary").hasCommand()).as("the next transaction waits").isFalse();
    }

    @Test
    void whatCannotMoveIsNamedAndItsSessionGoesOnOnTheOldPrimary() {
        onPrimary("CREATE TEMPORARY TABLE tmp (a INT)", ServerStatus.AUTOCOMMIT);
        onPrimary("LOCK TABLES t WRITE", ServerStatus.AUTOCOMMIT);
        assertThat(standing().unmovable()).containsExactly("LOCK TABLES", "temporary tables tmp");
        h.proxy.primaryHold().hold();
        onPrimary("INSERT INTO tmp VALUES (1)", ServerStatus.AUTOCOMMIT);
        onPrimary("UNLOCK TABLES", ServerStatus.AUTOCOMMIT);
        onPrimary("DROP TEMPORARY TABLE tmp", ServerStatus.AUTOCOMMIT);
        assertThat(standing().free()).isTrue();
    }

    @Test
    void readsOnReplicasAreNotHeld() {
        h.proxy.primaryHold().hold();
        h.query("SELECT a FROM t");
        FakeBackend replica = h.nodes.of("ro1").isEmpty() ? h.backend("ro2") : h.backend("ro1");
        assertThat(replica.takeClientCommand()).isEqualTo("SELECT a FROM t");
        replica.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void aSessionThatEndedIsLeftAloneAndAnswersAtOnce() {
        onPrimary("BEGIN", IN_TRANS);
        h.client.close();
        var standing = h.session.standing(id("primary"));
        var abandoned = h.session.abandonFailedPrimary(id("primary"));
        var left = h.session.leaveFormerPrimary(id("primary"));
        h.runTasks();
        assertThat(standing.join()).as("it holds nothing on the primary any more").isEqualTo(SessionStanding.gone(1));
        assertThat(abandoned).isCompleted();
        assertThat(left).isCompleted();
    }

    @Test
    void aReadOnlyEndpointsSessionIsNeitherHeldNorWaitedFor() {
        SessionHarness ro = SessionHarness.readOnly("");
        try {
            ro.proxy.primaryHold().hold();
            FakeBackend replica = ro.read("SELECT 1", "ro1");
            ro.query("BEGIN");
            assertThat(replica.takeClientCommand()).isEqualTo("BEGIN");
            replica.ok(IN_TRANS);
            ro.ok();
            var f = ro.session.standing(ro.proxy.topology().node("primary").orElseThrow().id());
            ro.runTasks();
            assertThat(f.join().free()).as("its transaction is on its replica").isTrue();
            ro.query("SET sql_mode = 'ANSI'");
            assertThat(replica.takeClientCommand()).as("not held").isEqualTo("SET sql_mode = 'ANSI'");
            replica.ok(IN_TRANS);
            ro.ok();
        } finally {
            ro.proxy.primaryHold().release();
            ro.close();
        }
    }

    @Test
    void whileThePrimaryIsHeldANewSessionLogsInOnAReplica() {
        var routing = dev.sluice.routing.session.RoutingSession.open(h.endpoint.view());
        assertThat(FirstNode.forLogin(h.endpoint, routing, h.proxy, false).orElseThrow().name()).isEqualTo("primary");
        assertThat(FirstNode.forLogin(h.endpoint, routing, h.proxy, true).orElseThrow().name()).isIn("ro1", "ro2");
    }
}
