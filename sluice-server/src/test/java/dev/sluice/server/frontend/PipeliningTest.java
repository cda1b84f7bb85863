package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import io.netty.buffer.ByteBuf;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Commands a client writes at once wait in the session, one at a time: the next starts when the
 * previous answer has ended, and the answers reach the client in the order of the commands.
 */
class PipeliningTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void readsWrittenInOneGoAreAnsweredInOrder() {
        h.c.pipeline("SELECT 1", "SELECT 2", "SELECT 3");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        assertThat(h.nodes.of("ro2")).as("the second read is not routed yet").isEmpty();
        ro1.rows(List.of("n"), List.of(List.of("1")));
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT 2");
        ro2.rows(List.of("n"), List.of(List.of("2")));
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 3");
        ro1.rows(List.of("n"), List.of(List.of("3")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(h.rows()).containsExactly(List.of("2"));
        assertThat(h.rows()).containsExactly(List.of("3"));
    }

    @Test
    void theNextCommandIsNotSentWhileAnAnswerIsHalfWay() {
        h.c.pipeline("SELECT a FROM t", "SELECT b FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ByteBuf end = ro1.rowsWithoutEnd(List.of("a"), List.of(List.of("1"), List.of("2")));
        assertThat(h.hasAnswer()).as("rows stream to the client before the answer ends").isTrue();
        assertThat(h.nodes.of("ro2")).as("the second command waits for the end").isEmpty();
        assertThat(ro1.hasCommand()).isFalse();
        ro1.partial(end);
        assertThat(h.rows()).containsExactly(List.of("1"), List.of("2"));
        assertThat(h.backend("ro2").takeClientCommand()).isEqualTo("SELECT b FROM t");
    }

    @Test
    void aWriteAndAReadWrittenTogetherRunOneAfterTheOther() {
        h.c.pipeline("INSERT INTO t VALUES (1)", "SELECT a FROM t");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("INSERT INTO t VALUES (1)");
        assertThat(h.nodes.of("ro1")).isEmpty();
        primary.ok();
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.rows(List.of("a"), List.of(List.of("1")));
        h.ok();
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void anErrorInTheMiddleOfAPipelineDoesNotStopTheCommandsAfterIt() {
        h.c.pipeline("UPDATE t SET a = 1", "UPDATE missing SET a = 1", "UPDATE t SET a = 3");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        assertThat(primary.takeClientCommand()).isEqualTo("UPDATE missing SET a = 1");
        primary.error(1146, "42S02", "Table 'test.missing' doesn't exist");
        assertThat(primary.takeClientCommand()).isEqualTo("UPDATE t SET a = 3");
        primary.ok();
        h.ok();
        assertThat(h.error()).startsWith("1146");
        h.ok();
    }

    @Test
    void aSessionCommandBetweenReadsIsAppliedBeforeTheReadThatFollowsIt() {
        h.c.pipeline("SELECT 1", "SET sql_mode = 'ANSI'", "SELECT 2");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        ro1.rows(List.of("n"), List.of(List.of("1")));
        assertThat(ro1.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        ro1.ok();
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        primary.ok();
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        ro2.ok();
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT 2");
        ro2.rows(List.of("n"), List.of(List.of("2")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        h.ok();
        assertThat(h.rows()).containsExactly(List.of("2"));
    }

    @Test
    void aQuitWrittenBehindACommandClosesTheConnectionOnlyAfterThatCommandsAnswer() {
        h.c.pipeline("UPDATE t SET a = 1");
        h.c.quit();
        assertThat(h.clientOpen()).as("the quit waits its turn").isTrue();
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        h.ok();
        assertThat(h.clientOpen()).isFalse();
    }
}
