package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session of an endpoint with {@code transaction-replay} whose primary connection closes inside a
 * transaction (BEHAVIOUR §10): the next command first replays the transaction on a new connection,
 * unseen by the client, and runs only if every answer matches.
 */
class TransactionReplaySessionTest {
    private static final int IN_TRANS = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;

    private SessionHarness h = SessionHarness.readWrite("transaction-replay: true");

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

    private void readOnPrimary(String sql, String value) {
        h.query(sql);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(sql);
        primary.rows(List.of("a"), List.of(List.of(value)), IN_TRANS);
        assertThat(h.rows()).containsExactly(List.of(value));
    }

    private FakeBackend lose() {
        FakeBackend primary = h.backend("primary");
        primary.die();
        h.runTasks();
        return primary;
    }

    @Test
    void theTransactionIsReplayedUnseenAndTheCommandRunsAfterIt() {
        onPrimary("BEGIN", IN_TRANS);
        readOnPrimary("SELECT a FROM t", "1");
        FakeBackend lost = lose();

        h.query("UPDATE t SET a = 2");
        FakeBackend replay = h.backend("primary");
        assertThat(replay).isNotSameAs(lost);
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo("SELECT a FROM t");
        replay.rows(List.of("a"), List.of(List.of("1")), IN_TRANS);
        assertThat(replay.takeClientCommand()).as("the client's command, after the replay")
                .isEqualTo("UPDATE t SET a = 2");
        replay.ok(IN_TRANS);
        h.ok();
        assertThat(h.clientOpen()).isTrue();
    }

    @Test
    void aReplayThatReadsOtherRowsEndsTheSessionSayingSo() {
        onPrimary("BEGIN", IN_TRANS);
        readOnPrimary("SELECT a FROM t", "1");
        lose();

        h.query("UPDATE t SET a = 2");
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo("SELECT a FROM t");
        replay.rows(List.of("a"), List.of(List.of("9")), IN_TRANS);
        assertThat(h.error()).startsWith("1105 the transaction open on the primary 'primary' was lost")
                .contains("its replay was tried and differed: the answer to statement 2 of 2 (SELECT a FROM t)");
        assertThat(h.clientOpen()).isFalse();
        assertThat(replay.hasCommand()).as("the client's command never runs").isFalse();
    }

    @Test
    void aReplayWhoseStatementEndsTheTransactionIsRefused() {
        onPrimary("BEGIN", IN_TRANS);
        onPrimary("UPDATE t SET a = 1", IN_TRANS);
        lose();

        h.query("UPDATE t SET a = 2");
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(ServerStatus.AUTOCOMMIT);
        assertThat(h.error()).contains("statement 1 of 2 (BEGIN) left no transaction open");
        assertThat(h.clientOpen()).isFalse();
    }

    @Test
    void aTransactionThatChangedTheSessionStateIsNotReplayed() {
        onPrimary("BEGIN", IN_TRANS);
        h.query("SET @@session.sql_mode = 'ANSI'");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok(IN_TRANS);
        h.ok();
        for (String replica : List.of("ro1", "ro2")) {
            for (FakeBackend b : h.nodes.of(replica)) {
                b.okAll();
            }
        }
        lose();

        h.query("UPDATE t SET a = 2");
        assertThat(h.error()).contains("it was not replayed: the session's state (schema, SET, user variables) "
                + "changed inside it");
        assertThat(h.nodes.of("primary")).as("no connection opened for it").hasSize(1);
    }

    @Test
    void statementsOutsideTheTransactionAreNotReplayed() {
        onPrimary("UPDATE t SET a = 0", ServerStatus.AUTOCOMMIT);
        onPrimary("BEGIN", IN_TRANS);
        onPrimary("UPDATE t SET a = 1", IN_TRANS);
        lose();

        h.query("COMMIT");
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo("UPDATE t SET a = 1");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo("COMMIT");
        replay.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
    }
}
