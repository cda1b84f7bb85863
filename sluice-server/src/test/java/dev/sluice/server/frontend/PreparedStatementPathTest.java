package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Prepared statements (docs/ARCHITECTURE.md, "Sessions and backends"): one id toward the client,
 * one per backend connection, prepared lazily where an EXECUTE runs; CLOSE reaches only the
 * connections that hold the statement.
 */
class PreparedStatementPathTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    private static String sqlHex(String sql) {
        return HexFormat.of().formatHex(sql.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** EXECUTE's argument toward the server: its id, no cursor, one iteration. */
    private static String executeOf(long serverId) {
        return "COM_STMT_EXECUTE " + HexFormat.of().formatHex(ClientEnd.statementArgument(serverId, 0, 1, 0, 0, 0));
    }

    /** Answers a PREPARE, wherever it went, with {@code serverId}; returns that backend. */
    private FakeBackend answerPrepare(String node, String sql, long serverId, int columns) {
        FakeBackend b = h.backend(node);
        assertThat(b.takeClientCommand()).isEqualTo("COM_STMT_PREPARE " + sqlHex(sql));
        b.prepareOk(serverId, 0, columns);
        return b;
    }

    @Test
    void aPreparedReadIsPreparedOnAReplicaAndTheClientGetsSluicesOwnId() {
        h.c.prepare("SELECT a FROM t");
        answerPrepare("ro2", "SELECT a FROM t", 77, 1);
        assertThat(h.c.prepared()).as("the client's id is Sluice's, not the server's").isEqualTo(1);
        assertThat(h.nodes.of("primary")).isEmpty();
    }

    @Test
    void anExecuteIsSentWithTheServersIdForThatConnection() {
        h.c.prepare("SELECT a FROM t");
        FakeBackend ro2 = answerPrepare("ro2", "SELECT a FROM t", 77, 1);
        long id = h.c.prepared();
        h.c.execute(id);
        answerPrepare("ro1", "SELECT a FROM t", 9, 1);
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).as("the id ro1 gave, not the client's")
                .isEqualTo(executeOf(9));
        ro1.ok();
        h.ok();
        h.c.execute(id);
        assertThat(ro2.takeClientCommand()).as("ro2 already holds it: no second PREPARE").isEqualTo(executeOf(77));
    }

    @Test
    void aPreparedWriteIsExecutedOnThePrimary() {
        h.c.prepare("UPDATE t SET a = 1");
        FakeBackend primary = answerPrepare("primary", "UPDATE t SET a = 1", 8, 0);
        long id = h.c.prepared();
        h.c.execute(id);
        assertThat(primary.takeClientCommand()).isEqualTo(executeOf(8));
        primary.ok();
        h.ok();
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void closeReachesOnlyTheConnectionsThatHoldTheStatementAndHasNoAnswer() {
        h.c.prepare("SELECT a FROM t");
        FakeBackend ro2 = answerPrepare("ro2", "SELECT a FROM t", 77, 1);
        long id = h.c.prepared();
        h.c.prepare("UPDATE t SET a = 1");
        FakeBackend primary = answerPrepare("primary", "UPDATE t SET a = 1", 8, 0);
        h.c.prepared();
        h.c.closeStatement(id);
        assertThat(ro2.take()).isEqualTo("COM_STMT_CLOSE 4d000000");
        assertThat(primary.hasCommand()).as("the primary does not hold the read").isFalse();
        assertThat(h.hasAnswer()).isFalse();
    }

    @Test
    void anExecuteOfAnUnknownStatementGetsAnErrorAndTheSessionGoesOn() {
        h.c.execute(42);
        assertThat(h.error()).startsWith("1243");
        assertThat(h.nodes.all()).isEmpty();
        h.c.ping();
        h.ok();
    }

    @Test
    void anExecuteAfterCloseIsRefused() {
        h.c.prepare("UPDATE t SET a = 1");
        answerPrepare("primary", "UPDATE t SET a = 1", 8, 0);
        long id = h.c.prepared();
        h.c.closeStatement(id);
        h.c.execute(id);
        assertThat(h.error()).startsWith("1243");
    }

    @Test
    void aPrepareWhoseReplicaDiesBeforeAnsweringIsPreparedOnTheNextNode() {
        h.c.prepare("SELECT a FROM t");
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).startsWith("COM_STMT_PREPARE");
        ro2.die();
        h.runTasks();
        FakeBackend next = h.nodes.all().get(h.nodes.all().size() - 1);
        assertThat(next).isNotSameAs(ro2);
        assertThat(next.takeClientCommand()).isEqualTo("COM_STMT_PREPARE " + sqlHex("SELECT a FROM t"));
        next.prepareOk(5, 0, 1);
        assertThat(h.c.prepared()).isEqualTo(1);
    }

    @Test
    void aPrepareThatReplicasKeepFailingIsPreparedOnThePrimaryAtItsLastTry() {
        h.c.prepare("SELECT a FROM t");
        for (int i = 0; i < ReadRetry.MAX_ATTEMPTS; i++) {
            String node = h.nodes.of("ro1").stream().anyMatch(b -> b.isOpen() && b.hasCommand()) ? "ro1" : "ro2";
            FakeBackend replica = h.backend(node);
            assertThat(replica.takeClientCommand()).isEqualTo("COM_STMT_PREPARE " + sqlHex("SELECT a FROM t"));
            h.nodeState(node, s -> s.withReachable(false));
            h.nodeState(node, s -> s.withReachable(true));
        }
        answerPrepare("primary", "SELECT a FROM t", 5, 1);
        assertThat(h.c.prepared()).as("the client gets its statement, not the replicas' failure").isEqualTo(1);
        assertThat(h.clientOpen()).isTrue();
    }

    @Test
    void anExecuteWhoseReplicaDiesBeforeAnsweringIsPreparedAndRunOnAnotherNode() {
        h.c.prepare("SELECT a FROM t");
        FakeBackend ro2 = answerPrepare("ro2", "SELECT a FROM t", 77, 1);
        long id = h.c.prepared();
        h.c.execute(id);
        FakeBackend ro1 = answerPrepare("ro1", "SELECT a FROM t", 9, 1);
        assertThat(ro1.takeClientCommand()).isEqualTo(executeOf(9));
        ro1.die();
        h.runTasks();
        assertThat(ro2.takeClientCommand()).as("the node that holds it runs it with its own id")
                .isEqualTo(executeOf(77));
        ro2.ok();
        h.ok();
        assertThat(h.clientOpen()).isTrue();
    }

    @Test
    void resetReachesTheConnectionThatHoldsTheStatementAndItsAnswerIsTheClients() {
        h.c.prepare("UPDATE t SET a = 1");
        FakeBackend primary = answerPrepare("primary", "UPDATE t SET a = 1", 8, 0);
        long id = h.c.prepared();
        h.send(dev.sluice.protocol.Command.COM_STMT_RESET, ClientEnd.statementArgument(id));
        assertThat(primary.takeClientCommand()).isEqualTo("COM_STMT_RESET 08000000");
        assertThat(h.hasAnswer()).isFalse();
        primary.ok();
        h.ok();
    }
}
