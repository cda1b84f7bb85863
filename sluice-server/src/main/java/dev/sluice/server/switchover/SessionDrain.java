package dev.sluice.server.switchover;

import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.ProxyRuntime;
import dev.sluice.server.runtime.SessionStanding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The sessions' side of a switchover: asks every live session, on its own loop, where it stands
 * toward the primary until {@link DrainVerdict} lets the primary move or calls the switchover off;
 * and has them close their idle connections to the old primary.
 */
final class SessionDrain {
    /** How often the sessions are asked again while some still use the primary. */
    private static final long POLL_MILLIS = 10;
    /** A session loop that does not answer this fast is counted as still busy. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(1);

    private final ProxyRuntime runtime;

    SessionDrain(ProxyRuntime runtime) {
        this.runtime = runtime;
    }

    /** Returns once no session holds {@code primaryId}; throws the call-off's reason past {@code timeout}. */
    void await(int primaryId, long heldSinceNanos, Duration timeout) {
        while (true) {
            Duration elapsed = Duration.ofNanos(System.nanoTime() - heldSinceNanos);
            DrainVerdict.Verdict v = DrainVerdict.judge(standings(primaryId), elapsed, timeout);
            if (v instanceof DrainVerdict.Proceed) {
                return;
            }
            if (v instanceof DrainVerdict.CallOff off) {
                throw new SwitchoverException(off.reason());
            }
            sleep(POLL_MILLIS);
        }
    }

    private List<SessionStanding> standings(int primaryId) {
        List<CompletableFuture<SessionStanding>> asked = askEverySession(s -> s.standing(primaryId));
        List<SessionStanding> out = new ArrayList<>(asked.size());
        long deadline = System.nanoTime() + ANSWER_TIMEOUT.toNanos();
        for (CompletableFuture<SessionStanding> f : asked) {
            try {
                out.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException | ExecutionException e) {
                out.add(new SessionStanding(-1, false, true, List.of()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SwitchoverException("interrupted while waiting for the sessions", e);
            }
        }
        return out;
    }

    /**
     * Every session closes its idle connection to {@code nodeId}; returns once all have (bounded):
     * a connection still open when the switchover ends foreign connections there would be ended
     * under its session.
     */
    void leave(int nodeId) {
        awaitEverySession(nodeId, s -> s.leaveFormerPrimary(nodeId));
    }

    /**
     * A failover: every session drops its connections to the failed primary {@code nodeId}, busy or
     * not, and a transaction open there is lost; returns once all have (bounded).
     */
    void abandon(int nodeId) {
        awaitEverySession(nodeId, s -> s.abandonFailedPrimary(nodeId));
    }

    /** Has every session leave {@code nodeId} as {@code departure} says; returns once all have (bounded). */
    private void awaitEverySession(int nodeId,
            Function<EndpointRuntime.SessionHandle, CompletableFuture<Void>> departure) {
        List<CompletableFuture<Void>> left = askEverySession(departure);
        try {
            CompletableFuture.allOf(left.toArray(CompletableFuture[]::new))
                    .get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // A session loop that is this slow is not sending anything either: the hold parks its commands.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchoverException("interrupted while the sessions left '" + nodeId + "'", e);
        }
    }

    /** Asks every live session of every endpoint; each answers on its own loop. */
    private <T> List<CompletableFuture<T>> askEverySession(
            Function<EndpointRuntime.SessionHandle, CompletableFuture<T>> question) {
        List<CompletableFuture<T>> asked = new ArrayList<>();
        for (EndpointRuntime e : runtime.endpoints()) {
            for (EndpointRuntime.SessionHandle s : e.sessions()) {
                asked.add(question.apply(s));
            }
        }
        return asked;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchoverException("interrupted", e);
        }
    }
}
