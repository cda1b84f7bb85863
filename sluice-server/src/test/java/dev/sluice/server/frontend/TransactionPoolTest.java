package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.server.backend.FakeBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transaction pool (docs/ARCHITECTURE.md, "Pools"): a backend connection goes back to the
 * pool at every transaction boundary and serves the next client, unless a lock cause ties the
 * session to it. Two clients on one event loop share one pool.
 */
class TransactionPoolTest {
    private static final int IN_TRANS = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;

    private final SessionHarness h = SessionHarness.readWrite(
            "connection-pool: transaction\n" + SessionHarness.READS_ON_REPLICAS);
    private final ClientEnd other = h.anotherClient();

    @AfterEach
    void close() {
        h.close();
    }

    /** The first client runs {@code sql} on the primary, answered OK with {@code status}. */
    private FakeBackend firstOnPrimary(String sql, int status) {
        h.query(sql);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(sql);
        primary.ok(status);
        h.ok();
        return primary;
    }

    @Test
    void aConnectionFreedByAnAutocommitWriteServesTheNextClient() {
        FakeBackend shared = firstOnPrimary("UPDATE t SET a = 1", ServerStatus.AUTOCOMMIT);
        other.query("UPDATE t SET a = 2");
        assertThat(shared.takeClientCommand()).isEqualTo("UPDATE t SET a = 2");
        shared.ok();
        other.ok();
        assertThat(h.nodes.of("primary")).hasSize(1);
    }

    @Test
    void aConnectionInsideATransactionIsNotLentToAnotherClient() {
        FakeBackend first = firstOnPrimary("BEGIN", IN_TRANS);
        other.query("UPDATE t SET a = 2");
        assertThat(first.hasCommand()).isFalse();
        FakeBackend second = h.backend("primary");
        assertThat(second).isNotSameAs(first);
        assertThat(second.takeClientCommand()).isEqualTo("UPDATE t SET a = 2");
    }

    @Test
    void aConnectionHandedBackAtCommitGoesToTheNextClient() {
        FakeBackend shared = firstOnPrimary("BEGIN", IN_TRANS);
        h.query("UPDATE t SET a = 1");
        shared.takeClientCommand();
        shared.ok(IN_TRANS);
        h.ok();
        h.query("COMMIT");
        shared.takeClientCommand();
        shared.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
        other.query("UPDATE t SET a = 2");
        assertThat(shared.takeClientCommand()).isEqualTo("UPDATE t SET a = 2");
        assertThat(h.nodes.of("primary")).hasSize(1);
    }

    @Test
    void aTemporaryTableKeepsTheConnectionWithItsSession() {
        FakeBackend first = firstOnPrimary("CREATE TEMPORARY TABLE scratch (a INT)", ServerStatus.AUTOCOMMIT);
        other.query("UPDATE t SET a = 2");
        assertThat(first.hasCommand()).as("the temporary table lives on that connection").isFalse();
        assertThat(h.nodes.of("primary")).hasSize(2);
    }

    @Test
    void aUserVariableAssignedInAQueryKeepsTheConnectionWithItsSession() {
        h.query("SELECT @a := 1");
        FakeBackend first = h.backend("primary");
        assertThat(first.takeClientCommand()).isEqualTo("SELECT @a := 1");
        first.rows(java.util.List.of("@a := 1"), java.util.List.of(java.util.List.of("1")));
        h.rows();
        other.query("UPDATE t SET a = 2");
        assertThat(first.hasCommand()).isFalse();
        assertThat(h.nodes.of("primary")).hasSize(2);
    }

    @Test
    void aPreparedStatementKeepsTheConnectionWithItsSession() {
        h.c.prepare("UPDATE t SET a = ?");
        FakeBackend first = h.backend("primary");
        assertThat(first.takeClientCommand()).startsWith("COM_STMT_PREPARE");
        first.prepareOk(1, 1, 0);
        h.c.prepared();
        other.query("UPDATE t SET a = 2");
        assertThat(first.hasCommand()).isFalse();
        assertThat(h.nodes.of("primary")).hasSize(2);
    }

    @Test
    void aConnectionChangesHandsWithAResetAndTheNewClientsStateWhenTheStatesDiffer() {
        FakeBackend shared = firstOnPrimary("SET sql_mode = 'ANSI'", ServerStatus.AUTOCOMMIT);
        other.query("UPDATE t SET a = 2");
        assertThat(shared.take()).startsWith("COM_RESET_CONNECTION");
        shared.ok();
        assertThat(shared.takeClientCommand()).as("the other client's schema").isEqualTo("USE `test`");
        shared.ok();
        assertThat(shared.takeClientCommand()).isEqualTo("UPDATE t SET a = 2");
        shared.ok();
        other.ok();
    }

    @Test
    void aSessionsOwnSetIsReplayedOnThePooledConnectionItGetsNext() {
        firstOnPrimary("SET sql_mode = 'ANSI'", ServerStatus.AUTOCOMMIT);
        FakeBackend taken = h.backend("primary");
        other.query("UPDATE t SET a = 2");
        taken.okAll();
        other.ok();
        h.query("UPDATE t SET a = 3");
        String command;
        boolean sawSet = false;
        while (!(command = taken.takeClientCommand()).equals("UPDATE t SET a = 3")) {
            sawSet |= command.equals("SET sql_mode = 'ANSI'");
            taken.ok();
        }
        assertThat(sawSet).as("the client's SET follows it to whichever connection it gets").isTrue();
    }

    @Test
    void aUserVariableSetBySetKeepsTheConnectionWithItsSession() {
        h.query("SET @v = 1");
        FakeBackend first = h.backend("primary");
        assertThat(first.takeClientCommand()).isEqualTo("SET @v = 1");
        first.ok();
        first.takeClientCommand();
        first.rows(java.util.List.of("@`v`", "HEX(@`v`)", "CHARSET(@`v`)", "COLLATION(@`v`)"),
                java.util.List.of(java.util.List.of("1", "31", "utf8mb4", "utf8mb4_general_ci")));
        h.ok();
        other.query("UPDATE t SET a = 2");
        assertThat(first.hasCommand()).isFalse();
        assertThat(h.nodes.of("primary")).hasSize(2);
    }

    @Test
    void rowCountIsAnsweredFromTheClientsOwnLastOkWhileItsConnectionServesOthers() {
        h.query("UPDATE t SET a = 1");
        FakeBackend shared = h.backend("primary");
        shared.takeClientCommand();
        shared.okPacket(new dev.sluice.protocol.response.OkPacket(3, 0, ServerStatus.AUTOCOMMIT, 0, "",
                java.util.List.of()));
        h.ok();
        other.query("DELETE FROM t");
        shared.takeClientCommand();
        shared.okPacket(new dev.sluice.protocol.response.OkPacket(8, 0, ServerStatus.AUTOCOMMIT, 0, "",
                java.util.List.of()));
        other.ok();
        h.query("SELECT ROW_COUNT()");
        assertThat(h.rows()).as("this client's 3, not the other's 8").containsExactly(java.util.List.of("3"));
        assertThat(shared.hasCommand()).isFalse();
    }
}
