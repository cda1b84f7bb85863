package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Transactions run on the primary from their first statement to their end (docs/ARCHITECTURE.md). */
class TransactionTest {
    private static final int IN_TRANS = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;

    private SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    private void onPrimary(String sql, int status) {
        h.query(sql);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(sql);
        primary.ok(status);
        h.ok();
    }

    private void readOnPrimary(String sql, int status) {
        h.query(sql);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(sql);
        primary.rows(List.of("a"), List.of(List.of("1")), status);
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void readsBetweenBeginAndCommitRunOnThePrimary() {
        onPrimary("BEGIN", IN_TRANS);
        readOnPrimary("SELECT a FROM t", IN_TRANS);
        onPrimary("UPDATE t SET a = 2", IN_TRANS);
        onPrimary("COMMIT", ServerStatus.AUTOCOMMIT);
        assertThat(h.nodes.of("ro1")).isEmpty();
        assertThat(h.nodes.of("ro2")).isEmpty();
    }

    @Test
    void readsAfterCommitGoBackToTheReplicas() {
        onPrimary("START TRANSACTION", IN_TRANS);
        readOnPrimary("SELECT a FROM t", IN_TRANS);
        onPrimary("COMMIT", ServerStatus.AUTOCOMMIT);
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.rows(List.of("a"), List.of(List.of("1")));
        h.rows();
    }

    @Test
    void readsAfterRollbackGoBackToTheReplicas() {
        onPrimary("BEGIN", IN_TRANS);
        onPrimary("ROLLBACK", ServerStatus.AUTOCOMMIT);
        h.query("SELECT a FROM t");
        assertThat(h.backend("ro1").takeClientCommand()).isEqualTo("SELECT a FROM t");
    }

    @Test
    void withAutocommitOffEveryReadRunsOnThePrimary() {
        onPrimary("SET autocommit = 0", 0);
        readOnPrimary("SELECT a FROM t", 0);
        readOnPrimary("SELECT b FROM u", ServerStatus.IN_TRANS);
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void aReplicaOfTheSessionIsKeptInAutocommitWhenTheClientTurnsItOff() {
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
        onPrimary("SET autocommit = 0", 0);
        List<String> sentToReplica = new java.util.ArrayList<>();
        while (ro1.hasCommand()) {
            sentToReplica.add(ro1.take());
            ro1.ok();
        }
        String lastWord = sentToReplica.stream().filter(c -> c.contains("autocommit")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("the replica heard nothing of autocommit: " + sentToReplica));
        assertThat(lastWord).as("a replica never sees the client's COMMIT").isEqualTo("SET autocommit=1");
    }

    @Test
    void thePrimaryClosingInsideATransactionEndsTheClientConnectionWithAnErrorNamingTheFailover() {
        onPrimary("BEGIN", IN_TRANS);
        onPrimary("UPDATE t SET a = 2", IN_TRANS);
        FakeBackend primary = h.backend("primary");
        primary.die();
        h.runTasks();
        h.query("UPDATE t SET a = 3");
        assertThat(h.error()).startsWith("1105 the transaction open on the primary 'primary' was lost")
                .contains("did not commit").contains("failover").contains("This connection ends");
        assertThat(h.clientOpen()).as("going on would commit half a transaction").isFalse();
        assertThat(h.nodes.of("primary")).as("nothing of the transaction is sent again").hasSize(1);
    }

    @Test
    void thePrimaryDyingUnderAStatementOfATransactionEndsTheClientConnection() {
        onPrimary("BEGIN", IN_TRANS);
        h.query("UPDATE t SET a = 2");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.die();
        h.runTasks();
        assertThat(h.clientOpen()).as("going on would commit half a transaction").isFalse();
        assertThat(h.nodes.of("primary")).as("nothing of the transaction is sent again").hasSize(1);
    }

    @Test
    void withTransactionSplittingTheReadsBeforeTheFirstWriteGoToAReplica() {
        h.close();
        h = SessionHarness.readsOnReplicas("transaction-splitting: true");
        // Splitting applies to READ COMMITTED sessions only: a snapshot read elsewhere would differ.
        h.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        h.ok();
        h.query("BEGIN");
        h.ok();
        assertThat(primary.hasCommand()).as("the BEGIN is held until the first write").isFalse();
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).as("the replica reads at the session's isolation level")
                .isEqualTo("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.rows(List.of("a"), List.of(List.of("1")));
        h.rows();
        h.query("UPDATE t SET a = 2");
        assertThat(primary.takeClientCommand()).isEqualTo("BEGIN");
        primary.ok(IN_TRANS);
        assertThat(primary.takeClientCommand()).isEqualTo("UPDATE t SET a = 2");
        primary.ok(IN_TRANS);
        h.ok();
    }
}
