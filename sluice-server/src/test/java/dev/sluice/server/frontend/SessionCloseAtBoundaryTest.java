package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.server.backend.FakeBackend;
import dev.sluice.server.runtime.SessionEnd;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session told that Sluice stops (BEHAVIOUR §13): closed at once when idle between transactions,
 * else only once the transaction it is in has ended and its client has the answer.
 */
class SessionCloseAtBoundaryTest {
    private static final int IN_TRANS = ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS;
    private final SessionHarness h = SessionHarness.readWrite();

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

    private CompletableFuture<SessionEnd> stop() {
        CompletableFuture<SessionEnd> ended = h.endpoint.sessions().get(0).closeAtBoundary();
        h.runTasks();
        return ended;
    }

    @Test
    void anIdleSessionOutsideATransactionClosesAtOnce() {
        onPrimary("UPDATE t SET a = 1", ServerStatus.AUTOCOMMIT);
        CompletableFuture<SessionEnd> ended = stop();
        assertThat(h.clientOpen()).isFalse();
        assertThat(ended).isCompletedWithValue(SessionEnd.AT_BOUNDARY);
        assertThat(h.endpoint.sessions()).isEmpty();
    }

    @Test
    void aSessionInATransactionGoesOnUntilItsCommitIsAnswered() {
        onPrimary("BEGIN", IN_TRANS);
        CompletableFuture<SessionEnd> ended = stop();
        assertThat(h.clientOpen()).as("open while its transaction is").isTrue();
        onPrimary("UPDATE t SET a = 1", IN_TRANS);
        assertThat(h.clientOpen()).isTrue();
        assertThat(ended).isNotDone();
        onPrimary("COMMIT", ServerStatus.AUTOCOMMIT);
        assertThat(h.clientOpen()).as("closed once the COMMIT's OK was sent").isFalse();
        assertThat(ended).isCompletedWithValue(SessionEnd.AT_BOUNDARY);
    }

    @Test
    void autocommitOffAloneIsNoTransaction() {
        onPrimary("SET autocommit = 0", 0);
        h.runTasks();
        CompletableFuture<SessionEnd> ended = stop();
        assertThat(h.clientOpen()).isFalse();
        assertThat(ended).isCompletedWithValue(SessionEnd.AT_BOUNDARY);
    }

    @Test
    void aSessionStillInATransactionIsCutWhenTold() {
        onPrimary("BEGIN", IN_TRANS);
        CompletableFuture<SessionEnd> ended = stop();
        h.endpoint.sessions().get(0).cut();
        h.runTasks();
        assertThat(h.clientOpen()).isFalse();
        assertThat(ended).isCompletedWithValue(SessionEnd.CUT);
    }

    @Test
    void withoutAStopNothingCloses() {
        onPrimary("BEGIN", IN_TRANS);
        onPrimary("COMMIT", ServerStatus.AUTOCOMMIT);
        assertThat(h.clientOpen()).isTrue();
    }
}
