package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a failed backend costs the client (docs/ARCHITECTURE.md, "Sessions and backends"): a read
 * that had not started to answer is retried elsewhere unseen; an answer cut half-way ends the
 * client connection; a write's failure is an error and the session goes on.
 */
class BackendFailureTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aReplicaDyingBeforeItAnswersHasTheReadRetriedElsewhereWithoutAnError() {
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.die();
        h.runTasks();
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro2.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(h.clientOpen()).isTrue();
    }

    @Test
    void aReplicaThatRefusesConnectionsHasTheReadGoElsewhere() {
        h.nodes.refuse("ro1", true);
        h.query("SELECT a FROM t");
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro2.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void aReadWhoseReplicasAreAllGoneRunsOnThePrimary() {
        h.nodes.refuse("ro1", true);
        h.nodes.refuse("ro2", true);
        h.query("SELECT a FROM t");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    /**
     * The primary dies: its replicas lose their source a moment before the monitor finds the
     * primary gone, so for that moment no replica is readable and the read falls back to the dead
     * primary. Its refusal marks it down, the replicas that lost only their source are readable
     * again, and the read goes to one of them without an error.
     */
    @Test
    void aReadFallingBackToAPrimaryThatJustDiedGoesToAReplicaThatLostOnlyItsSource() {
        h.nodeState("ro1", s -> s.withReplicationThreads(false, true));
        h.nodeState("ro2", s -> s.withReplicationThreads(false, true));
        h.nodes.refuse("primary", true);
        h.query("SELECT a FROM t");
        FakeBackend replica = h.backend(h.nodes.of("ro1").isEmpty() ? "ro2" : "ro1");
        assertThat(replica.takeClientCommand()).isEqualTo("SELECT a FROM t");
        replica.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(h.clientOpen()).isTrue();
    }

    /** As above, on a connection to the primary the session already had: it dies before answering. */
    @Test
    void aReadOnThePrimaryAsNoReplicaIsReadableIsRetriedWhenThePrimaryDiesBeforeAnswering() {
        h.query("UPDATE t SET a = 1");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        h.ok();
        h.nodeState("ro1", s -> s.withReplicationThreads(false, true));
        h.nodeState("ro2", s -> s.withReplicationThreads(false, true));
        h.query("SELECT a FROM t");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM t");
        primary.die();
        h.runTasks();
        FakeBackend replica = h.backend(h.nodes.of("ro1").isEmpty() ? "ro2" : "ro1");
        assertThat(replica.takeClientCommand()).isEqualTo("SELECT a FROM t");
        replica.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    /** A read on the primary inside a transaction belongs to it: it is never sent elsewhere. */
    @Test
    void aReadInsideATransactionOnThePrimaryIsNotRetriedWhenThePrimaryDies() {
        h.nodeState("ro1", s -> s.withReplicationThreads(false, true));
        h.nodeState("ro2", s -> s.withReplicationThreads(false, true));
        h.query("BEGIN");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok(ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS);
        h.ok();
        h.query("SELECT a FROM t");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM t");
        primary.die();
        h.runTasks();
        assertThat(h.clientOpen()).as("going on would read outside the transaction").isFalse();
        for (String replica : List.of("ro1", "ro2")) {
            for (FakeBackend b : h.nodes.of(replica)) {
                while (b.hasCommand()) {
                    assertThat(b.take()).doesNotContain("SELECT a FROM t");
                }
            }
        }
    }

    @Test
    void aReplicaDyingAfterPartOfTheAnswerWasForwardedEndsTheClientConnection() {
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.rowsWithoutEnd(List.of("a"), List.of(List.of("1")));
        ro1.die();
        h.runTasks();
        assertThat(h.clientOpen()).as("half an answer cannot be completed from elsewhere").isFalse();
        assertThat(h.nodes.of("ro2")).as("no retry once bytes reached the client").isEmpty();
    }

    @Test
    void thePrimaryDyingUnderAnAutocommitWriteGivesAnErrorAndTheSessionGoesOn() {
        h.query("UPDATE t SET a = 1");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.die();
        h.runTasks();
        assertThat(h.error()).startsWith("1105 Lost connection to the primary 'primary'")
                .contains("may or may not have run").contains("does not send it again").contains("failover");
        assertThat(h.nodes.of("primary")).as("a write is never re-sent on its own").hasSize(1);
        h.query("UPDATE t SET a = 2");
        FakeBackend again = h.backend("primary");
        assertThat(again).isNotSameAs(primary);
        assertThat(again.takeClientCommand()).isEqualTo("UPDATE t SET a = 2");
        again.ok();
        h.ok();
    }

    @Test
    void aWriteWhenThePrimaryCannotBeReachedGetsAnErrorAndTheSessionGoesOn() {
        h.nodes.refuse("primary", true);
        h.query("UPDATE t SET a = 1");
        assertThat(h.error()).contains("backend 'primary' is unavailable");
        assertThat(h.clientOpen()).isTrue();
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
    }

    @Test
    void aReplicaClosedBetweenCommandsIsReplacedByANewConnectionForTheNextRead() {
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
        ro1.die();
        h.runTasks();
        assertThat(h.clientOpen()).isTrue();
        h.query("SELECT 2");
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT 2");
        ro2.rows(List.of("2"), List.of(List.of("2")));
        h.rows();
        h.query("SELECT 3");
        FakeBackend replacement = h.backend("ro1");
        assertThat(replacement).isNotSameAs(ro1);
        assertThat(replacement.takeClientCommand()).isEqualTo("SELECT 3");
        replacement.rows(List.of("3"), List.of(List.of("3")));
        assertThat(h.rows()).containsExactly(List.of("3"));
    }

    @Test
    void aReplicaFoundUnreachableByTheMonitorHasAWaitingReadRetriedElsewhere() {
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        h.nodeState("ro1", s -> s.withReachable(false));
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro2.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(ro1.isOpen()).as("a hung replica's connection is given up").isFalse();
    }

    /**
     * Replicas flapping: each one the read goes to is found unreachable under it, and is back in the
     * monitor's view by the next try. The read's last try runs on the primary, so the client sees
     * rows, not the last replica's failure.
     */
    @Test
    void aReadThatReplicasKeepFailingEndsOnThePrimaryWithoutAnError() {
        h.query("SELECT a FROM t");
        for (int i = 0; i < ReadRetry.MAX_ATTEMPTS; i++) {
            String node = h.backend("ro1").isOpen() && h.backend("ro1").hasCommand() ? "ro1" : "ro2";
            FakeBackend replica = h.backend(node);
            assertThat(replica.takeClientCommand()).isEqualTo("SELECT a FROM t");
            h.nodeState(node, s -> s.withReachable(false));
            h.nodeState(node, s -> s.withReachable(true));
        }
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(h.clientOpen()).isTrue();
    }
}
