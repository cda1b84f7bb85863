package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client that goes away (closes its socket) in the middle of things: what was under way on its
 * backends must not reach another client, and nothing more is sent for it.
 */
class ClientGoneTest {
    private SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    private FakeBackend streamingOnRo1() {
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.rowsWithoutEnd(List.of("a"), List.of(List.of("1")));
        return ro1;
    }

    @Test
    void aClientGoneMidAnswerTakesItsBackendConnectionWithIt() {
        FakeBackend ro1 = streamingOnRo1();
        h.client.close();
        h.runTasks();
        assertThat(ro1.isOpen()).isFalse();
    }

    @Test
    void commandsQueuedByAClientThatWentAwayAreNeverSentAndItsBusyConnectionCloses() {
        h.c.pipeline("UPDATE t SET a = 1", "UPDATE t SET a = 2");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("UPDATE t SET a = 1");
        h.client.close();
        h.runTasks();
        assertThat(primary.isOpen()).as("the write's answer is due; its connection goes with the client").isFalse();
        assertThat(primary.hasCommand()).isFalse();
    }

    @Test
    void underTheSessionPoolAConnectionLeftMidAnswerIsClosedNotPooled() {
        h.close();
        h = SessionHarness.readWrite("connection-pool: session\nbalancer: weighted\n"
                + "weights: {primary: 0, ro1: 100, ro2: 0}");
        FakeBackend ro1 = streamingOnRo1();
        h.client.close();
        h.runTasks();
        ClientEnd next = h.anotherClient();
        next.query("SELECT b FROM t");
        FakeBackend used = h.backend("ro1");
        assertThat(used).isNotSameAs(ro1);
        assertThat(ro1.isOpen()).as("the rest of its answer would reach the next client").isFalse();
        assertThat(used.takeClientCommand()).isEqualTo("SELECT b FROM t");
    }
}
