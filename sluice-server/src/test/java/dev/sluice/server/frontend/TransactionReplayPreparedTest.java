package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.server.backend.FakeBackend;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Transaction replay of the binary protocol (BEHAVIOUR §10): executions of prepared statements in
 * a transaction lost with its primary connection are run again on the new connection, the
 * statement prepared there under that connection's own id, with the parameters, types and long
 * data the client sent.
 */
class TransactionReplayPreparedTest {
    private static final int IN_TRANS = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;
    private static final String UPDATE = "UPDATE t SET a = ? WHERE id = 1";
    private static final int LONG = 3;

    private final SessionHarness h = SessionHarness.readWrite("transaction-replay: true");

    @AfterEach
    void close() {
        h.close();
    }

    // ---- the client's commands, and what the primary is sent ----

    /** Prepares {@link #UPDATE} on the primary under {@code serverId}; returns the client's id. */
    private long prepare(long serverId) {
        h.c.prepare(UPDATE);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(prepareOf(UPDATE));
        primary.prepareOk(serverId, 1, 0);
        return h.c.prepared();
    }

    private void begin() {
        h.query("BEGIN");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("BEGIN");
        primary.ok(IN_TRANS);
        h.ok();
    }

    /** An EXECUTE with one LONG parameter; its type is sent only when {@code withType}. */
    private static byte[] execute(long statementId, int value, boolean withType, int flags) {
        return withType
                ? ClientEnd.statementArgument(statementId, flags, 1, 0, 0, 0, 0, 1, LONG, 0, value, 0, 0, 0)
                : ClientEnd.statementArgument(statementId, flags, 1, 0, 0, 0, 0, 0, value, 0, 0, 0);
    }

    private static String executeOf(long serverId, int value, boolean withType) {
        return "COM_STMT_EXECUTE " + HexFormat.of().formatHex(execute(serverId, value, withType, 0));
    }

    private static String prepareOf(String sql) {
        return "COM_STMT_PREPARE " + HexFormat.of().formatHex(sql.getBytes(StandardCharsets.UTF_8));
    }

    /** The client executes; the primary answers an OK with {@code affected} rows. */
    private void executeOnPrimary(long clientId, long serverId, int value, boolean withType, long affected) {
        h.send(Command.COM_STMT_EXECUTE, execute(clientId, value, withType, 0));
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(executeOf(serverId, value, withType));
        primary.okPacket(new OkPacket(affected, 0, IN_TRANS, 0, "", List.of()));
        h.ok();
    }

    private FakeBackend lose() {
        FakeBackend primary = h.backend("primary");
        primary.die();
        h.runTasks();
        return primary;
    }

    private static void answer(FakeBackend b, long affected) {
        b.okPacket(new OkPacket(affected, 0, IN_TRANS, 0, "", List.of()));
    }

    // ---- cases ----

    @Test
    void executionsAreReplayedUnderTheNewConnectionsIdWithTheirTypesAndTheStatementStaysThere() {
        long id = prepare(8);
        begin();
        executeOnPrimary(id, 8, 5, true, 1);
        executeOnPrimary(id, 8, 6, false, 1);
        FakeBackend lost = lose();

        h.query("COMMIT");
        FakeBackend replay = h.backend("primary");
        assertThat(replay).isNotSameAs(lost);
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).as("prepared on the new connection first").isEqualTo(prepareOf(UPDATE));
        replay.prepareOk(21, 1, 0);
        assertThat(replay.takeClientCommand()).isEqualTo(executeOf(21, 5, true));
        answer(replay, 1);
        assertThat(replay.takeClientCommand()).as("the types the client sent once, put in")
                .isEqualTo(executeOf(21, 6, true));
        answer(replay, 1);
        assertThat(replay.takeClientCommand()).isEqualTo("COMMIT");
        replay.ok(ServerStatus.AUTOCOMMIT);
        h.ok();

        h.send(Command.COM_STMT_EXECUTE, execute(id, 7, false, 0));
        assertThat(replay.takeClientCommand()).as("the replay's PREPARE serves the client's next execute")
                .isEqualTo(executeOf(21, 7, true));
        replay.ok();
        h.ok();
        assertThat(h.clientOpen()).isTrue();
    }

    @Test
    void anExecutionThatAnswersOtherwiseEndsTheSessionSayingWhich() {
        long id = prepare(8);
        begin();
        executeOnPrimary(id, 8, 5, true, 1);
        lose();

        h.query("COMMIT");
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo(prepareOf(UPDATE));
        replay.prepareOk(21, 1, 0);
        assertThat(replay.takeClientCommand()).isEqualTo(executeOf(21, 5, true));
        answer(replay, 0);
        assertThat(h.error()).contains("its replay was tried and differed: the answer to statement 2 of 2 ("
                + UPDATE + ") is not the one the client got");
        assertThat(h.clientOpen()).isFalse();
        assertThat(replay.hasCommand()).as("COMMIT never runs").isFalse();
    }

    @Test
    void aStatementClosedSinceIsPreparedForTheReplayOnlyAndClosedAfterIt() {
        long id = prepare(8);
        begin();
        executeOnPrimary(id, 8, 5, true, 1);
        h.c.closeStatement(id);
        h.runTasks();
        assertThat(h.backend("primary").takeClientCommand()).startsWith("COM_STMT_CLOSE 08000000");
        lose();

        h.query("COMMIT");
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo(prepareOf(UPDATE));
        replay.prepareOk(21, 1, 0);
        assertThat(replay.takeClientCommand()).isEqualTo(executeOf(21, 5, true));
        answer(replay, 1);
        assertThat(replay.take()).isEqualTo("COM_STMT_CLOSE 15000000");
        assertThat(replay.takeClientCommand()).isEqualTo("COMMIT");
        replay.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
    }

    @Test
    void longDataSentForAnExecutionIsSentAgainBeforeIt() {
        long id = prepare(8);
        begin();
        byte[] chunk = ClientEnd.statementArgument(id, 0, 0, 'a', 'b', 'c');
        h.send(Command.COM_STMT_SEND_LONG_DATA, chunk);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.take()).isEqualTo("COM_STMT_SEND_LONG_DATA 080000000000616263");
        executeOnPrimary(id, 8, 5, true, 1);
        lose();

        h.query("COMMIT");
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo(prepareOf(UPDATE));
        replay.prepareOk(21, 1, 0);
        assertThat(replay.take()).isEqualTo("COM_STMT_SEND_LONG_DATA 150000000000616263");
        assertThat(replay.takeClientCommand()).isEqualTo(executeOf(21, 5, true));
        answer(replay, 1);
        assertThat(replay.takeClientCommand()).isEqualTo("COMMIT");
        replay.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
    }

    @Test
    void longDataLostWithTheConnectionIsNotPartOfTheNextExecution() {
        long id = prepare(8);
        begin();
        executeOnPrimary(id, 8, 5, true, 1);
        h.send(Command.COM_STMT_SEND_LONG_DATA, ClientEnd.statementArgument(id, 0, 0, 'o', 'l', 'd'));
        assertThat(h.backend("primary").take()).isEqualTo("COM_STMT_SEND_LONG_DATA 0800000000006f6c64");
        lose();

        h.send(Command.COM_STMT_EXECUTE, execute(id, 5, false, 0));
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo(prepareOf(UPDATE));
        replay.prepareOk(21, 1, 0);
        assertThat(replay.takeClientCommand()).isEqualTo(executeOf(21, 5, true));
        answer(replay, 1);
        assertThat(h.error()).as("the replay went through; the long data did not")
                .contains("The long data sent for statement (" + id + ") was lost");

        h.send(Command.COM_STMT_SEND_LONG_DATA, ClientEnd.statementArgument(id, 0, 0, 'n', 'e', 'w'));
        assertThat(replay.take()).isEqualTo("COM_STMT_SEND_LONG_DATA 1500000000006e6577");
        h.send(Command.COM_STMT_EXECUTE, execute(id, 5, false, 0));
        assertThat(replay.takeClientCommand()).isEqualTo(executeOf(21, 5, true));
        answer(replay, 1);
        h.ok();
        replay.die();
        h.runTasks();

        h.query("COMMIT");
        FakeBackend again = h.backend("primary");
        assertThat(again.takeClientCommand()).isEqualTo("BEGIN");
        again.ok(IN_TRANS);
        assertThat(again.takeClientCommand()).isEqualTo(prepareOf(UPDATE));
        again.prepareOk(30, 1, 0);
        assertThat(again.takeClientCommand()).isEqualTo(executeOf(30, 5, true));
        answer(again, 1);
        assertThat(again.take()).as("only the long data the second execution ran with")
                .isEqualTo("COM_STMT_SEND_LONG_DATA 1e00000000006e6577");
        assertThat(again.takeClientCommand()).isEqualTo(executeOf(30, 5, true));
        answer(again, 1);
        assertThat(again.takeClientCommand()).isEqualTo("COMMIT");
        again.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
    }

    @Test
    void aCloseThatFindsTheTransactionLostRunsAfterTheReplayAndTheSessionGoesOn() {
        long id = prepare(8);
        begin();
        executeOnPrimary(id, 8, 5, true, 1);
        lose();

        h.c.closeStatement(id);
        FakeBackend replay = h.backend("primary");
        assertThat(replay.takeClientCommand()).isEqualTo("BEGIN");
        replay.ok(IN_TRANS);
        assertThat(replay.takeClientCommand()).isEqualTo(prepareOf(UPDATE));
        replay.prepareOk(21, 1, 0);
        assertThat(replay.takeClientCommand()).isEqualTo(executeOf(21, 5, true));
        answer(replay, 1);
        assertThat(replay.take()).as("the client's CLOSE, under the replay's id").isEqualTo("COM_STMT_CLOSE 15000000");
        assertThat(h.hasAnswer()).as("CLOSE has no answer").isFalse();

        h.query("COMMIT");
        assertThat(replay.takeClientCommand()).as("the session takes its next command").isEqualTo("COMMIT");
        replay.ok(ServerStatus.AUTOCOMMIT);
        h.ok();
    }

    @Test
    void anExecutionThatOpensACursorIsNotReplayed() {
        long id = prepare(8);
        begin();
        h.send(Command.COM_STMT_EXECUTE, execute(id, 5, true, 1));
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok(IN_TRANS);
        h.ok();
        lose();

        h.query("COMMIT");
        assertThat(h.error()).contains("it was not replayed: a prepared statement opened a cursor in it (rows "
                + "fetched with COM_STMT_FETCH are not replayed)");
        assertThat(h.nodes.of("primary")).as("no connection opened for it").hasSize(1);
    }
}
