package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A replica the monitor finds unreachable (hung: its sockets stay open) while a session uses it
 * (docs/ARCHITECTURE.md, "Sessions and backends"): idle connections to it are dropped, an answer
 * streaming from it is left to finish while it makes progress and cut once nothing comes for the
 * monitor's query timeout (1 s by default), and a slow client is waited for.
 */
class ReplicaHangTest {
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(1);

    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    private FakeBackend streamingFromRo1() {
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        return ro1;
    }

    @Test
    void anIdleConnectionToAReplicaFoundUnreachableIsDroppedAndReadsGoElsewhere() {
        FakeBackend ro1 = streamingFromRo1();
        ro1.rows(List.of("a"), List.of(List.of("1")));
        h.rows();
        h.nodeState("ro1", s -> s.withReachable(false));
        assertThat(ro1.isOpen()).isFalse();
        h.query("SELECT b FROM t");
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT b FROM t");
        ro2.rows(List.of("b"), List.of(List.of("2")));
        assertThat(h.rows()).containsExactly(List.of("2"));
    }

    @Test
    void anAnswerAlreadyStreamingFromAReplicaFoundUnreachableIsLeftToFinish() {
        FakeBackend ro1 = streamingFromRo1();
        ByteBuf end = ro1.rowsWithoutEnd(List.of("a"), List.of(List.of("1")));
        h.nodeState("ro1", s -> s.withReachable(false));
        assertThat(ro1.isOpen()).as("its bytes show it was alive a moment ago").isTrue();
        ro1.partial(end);
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(h.clientOpen()).isTrue();
    }

    @Test
    void anAnswerThatStopsComingFromAnUnreachableReplicaIsCutAfterTheMonitorsQueryTimeout() {
        FakeBackend ro1 = streamingFromRo1();
        ro1.rowsWithoutEnd(List.of("a"), List.of(List.of("1")));
        h.nodeState("ro1", s -> s.withReachable(false));
        h.advanceTime(QUERY_TIMEOUT.minusMillis(100));
        assertThat(h.clientOpen()).isTrue();
        h.advanceTime(Duration.ofMillis(200));
        assertThat(ro1.isOpen()).isFalse();
        assertThat(h.clientOpen()).as("a lost connection is better than one that waits for ever").isFalse();
    }

    @Test
    void anAnswerThatKeepsComingIsNotCutUntilItStalls() {
        FakeBackend ro1 = streamingFromRo1();
        ro1.rowsWithoutEnd(List.of("a"), List.of(List.of("1")));
        h.nodeState("ro1", s -> s.withReachable(false));
        h.advanceTime(QUERY_TIMEOUT.dividedBy(2));
        ro1.moreRows(List.of(List.of("2")));
        h.advanceTime(QUERY_TIMEOUT.dividedBy(2).plusMillis(100));
        assertThat(h.clientOpen()).as("progress since the last look").isTrue();
        h.advanceTime(QUERY_TIMEOUT);
        assertThat(h.clientOpen()).as("no progress for a whole query timeout").isFalse();
    }

    @Test
    void aClientTooSlowToTakeMoreIsWaitedForEvenWhenItsReplicaIsUnreachable() {
        FakeBackend ro1 = streamingFromRo1();
        h.c.stall(1024);
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(List.of("row " + i + " " + "x".repeat(40)));
        }
        ByteBuf end = ro1.rowsWithoutEnd(List.of("a"), rows);
        h.nodeState("ro1", s -> s.withReachable(false));
        h.advanceTime(QUERY_TIMEOUT.multipliedBy(5));
        assertThat(h.clientOpen()).as("a slow client is not the node's fault").isTrue();
        assertThat(ro1.isOpen()).isTrue();
        h.c.resume();
        ro1.partial(end);
        assertThat(h.rows()).hasSize(100);
    }
}
