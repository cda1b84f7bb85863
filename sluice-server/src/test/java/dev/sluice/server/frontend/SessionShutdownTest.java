package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.runtime.SessionEnd;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A session asked to end at its next transaction boundary (BEHAVIOUR §13). */
class SessionShutdownTest {
    private final AtomicBoolean atBoundary = new AtomicBoolean();
    private final AtomicInteger closes = new AtomicInteger();
    private final SessionShutdown shutdown = new SessionShutdown(atBoundary::get, () -> {
        closes.incrementAndGet();
    });

    @Test
    void anIdleSessionClosesAtOnce() {
        atBoundary.set(true);
        shutdown.ask();
        assertThat(closes).hasValue(1);
        shutdown.sessionEnded();
        assertThat(shutdown.ended()).isCompletedWithValue(SessionEnd.AT_BOUNDARY);
    }

    @Test
    void aSessionInATransactionClosesWhenItEnds() {
        shutdown.ask();
        shutdown.atIdle();
        assertThat(closes).hasValue(0);
        atBoundary.set(true);
        shutdown.atIdle();
        assertThat(closes).hasValue(1);
        shutdown.sessionEnded();
        assertThat(shutdown.ended()).isCompletedWithValue(SessionEnd.AT_BOUNDARY);
    }

    @Test
    void nothingHappensAtABoundaryUntilSluiceStops() {
        atBoundary.set(true);
        shutdown.atIdle();
        assertThat(closes).hasValue(0);
        assertThat(shutdown.ended()).isNotDone();
    }

    @Test
    void aClientThatLeavesOnItsOwnEndedByItself() {
        shutdown.ask();
        shutdown.sessionEnded();
        assertThat(shutdown.ended()).isCompletedWithValue(SessionEnd.BY_ITSELF);
        shutdown.cut();
        assertThat(closes).hasValue(0);
    }

    @Test
    void aSessionStillBusyAtTheTimeoutIsCut() {
        shutdown.ask();
        shutdown.cut();
        assertThat(closes).hasValue(1);
        shutdown.sessionEnded();
        assertThat(shutdown.ended()).isCompletedWithValue(SessionEnd.CUT);
    }
}
