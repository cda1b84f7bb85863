package dev.sluice.server.frontend;

import dev.sluice.server.runtime.SessionEnd;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A session's part of a graceful stop (BEHAVIOUR §13): once asked, it closes the session the first
 * time it stands at a transaction boundary with nothing running and nothing queued — at once if it
 * stands there already, else when the command or transaction it is in ends. So a client loses its
 * connection between two transactions, never inside one, unless the shutdown timeout cuts it.
 * Everything runs on the session's event loop.
 */
final class SessionShutdown {
    private final BooleanSupplier atBoundary;
    private final Runnable close;
    private final CompletableFuture<SessionEnd> ended = new CompletableFuture<>();
    private boolean asked;
    private SessionEnd reason = SessionEnd.BY_ITSELF;

    /**
     * @param atBoundary whether the session stands between two transactions, idle, with nothing queued
     * @param close closes the session
     */
    SessionShutdown(BooleanSupplier atBoundary, Runnable close) {
        this.atBoundary = atBoundary;
        this.close = close;
    }

    /** The future of the session's end. */
    CompletableFuture<SessionEnd> ended() {
        return ended;
    }

    /** Sluice is stopping: close at the next boundary, now if the session is at one. */
    void ask() {
        asked = true;
        atIdle();
    }

    /** The session went idle (a command ended and nothing is queued): the boundary it waited for? */
    void atIdle() {
        if (asked && !ended.isDone() && atBoundary.getAsBoolean()) {
            reason = SessionEnd.AT_BOUNDARY;
            close.run();
        }
    }

    /** The shutdown timeout ran out. */
    void cut() {
        if (!ended.isDone()) {
            reason = SessionEnd.CUT;
            close.run();
        }
    }

    /** The client connection closed, for whatever reason. */
    void sessionEnded() {
        ended.complete(reason);
    }

    /** Whether the session watches for its boundary (only while Sluice stops). */
    boolean asked() {
        return asked;
    }
}
