package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Backpressure both ways (docs/ARCHITECTURE.md, "Runtime shape"): a client that cannot take more
 * stops reads from its backend, and a client that writes far ahead of its answers stops being read.
 */
class BackpressureTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    private static List<List<String>> manyRows(int n) {
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(List.of("row-" + i + "-" + "x".repeat(40)));
        }
        return rows;
    }

    private FakeBackend readStarted(String sql) {
        h.query(sql);
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo(sql);
        return ro1;
    }

    @Test
    void aClientThatCannotTakeMoreStopsReadsFromItsBackend() {
        FakeBackend ro1 = readStarted("SELECT big FROM t");
        h.c.stall(1024);
        ro1.rowsWithoutEnd(List.of("big"), manyRows(100));
        assertThat(h.c.writable()).isFalse();
        assertThat(ro1.readByTheSession()).as("the backend is not read while the client is full").isFalse();
    }

    @Test
    void theBackendIsReadAgainOnceTheClientDrainsAndTheWholeAnswerArrives() {
        FakeBackend ro1 = readStarted("SELECT big FROM t");
        h.c.stall(1024);
        var end = ro1.rowsWithoutEnd(List.of("big"), manyRows(100));
        h.c.resume();
        assertThat(ro1.readByTheSession()).isTrue();
        ro1.partial(end);
        assertThat(h.rows()).hasSize(100).first().isEqualTo(List.of("row-0-" + "x".repeat(40)));
    }

    @Test
    void aClientThatKeepsUpNeverPausesItsBackend() {
        FakeBackend ro1 = readStarted("SELECT big FROM t");
        ro1.rowsWithoutEnd(List.of("big"), manyRows(100));
        assertThat(ro1.readByTheSession()).isTrue();
    }

    @Test
    void aSmallAnswerBelowTheWaterMarkDoesNotPauseTheBackend() {
        FakeBackend ro1 = readStarted("SELECT 1");
        h.c.stall(64 * 1024);
        ro1.rows(List.of("1"), List.of(List.of("1")));
        assertThat(ro1.readByTheSession()).isTrue();
        h.c.resume();
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void aClientWritingFarAheadOfItsAnswersIsNoLongerReadUntilTheQueueDrains() {
        String[] many = new String[100];
        for (int i = 0; i < many.length; i++) {
            many[i] = "UPDATE t SET a = " + i;
        }
        h.c.pipeline(many);
        assertThat(h.client.config().isAutoRead()).as("queued commands are bounded").isFalse();
        FakeBackend primary = h.backend("primary");
        for (int i = 0; i < many.length; i++) {
            assertThat(primary.takeClientCommand()).isEqualTo(many[i]);
            primary.ok();
        }
        assertThat(h.client.config().isAutoRead()).isTrue();
        for (int i = 0; i < many.length; i++) {
            h.ok();
        }
    }
}
