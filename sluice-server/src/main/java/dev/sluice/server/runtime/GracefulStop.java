package dev.sluice.server.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The sessions' part of a graceful stop (BEHAVIOUR §13), once no endpoint accepts any more: every
 * session is asked to end at its next transaction boundary — an idle one at once — and is waited
 * for up to the shutdown timeout; the ones still busy then are cut. A session whose login was under
 * way when the listeners closed is asked as soon as it registers (see
 * {@link EndpointRuntime#register}), so it is counted too.
 */
public final class GracefulStop {
    /** How long the sessions being cut get to close their sockets before the event loops stop. */
    static final Duration CUT_WAIT = Duration.ofSeconds(2);

    private final Collection<EndpointRuntime> endpoints;
    private final Map<EndpointRuntime.SessionHandle, CompletableFuture<SessionEnd>> ending = new ConcurrentHashMap<>();

    public GracefulStop(Collection<EndpointRuntime> endpoints) {
        this.endpoints = List.copyOf(endpoints);
    }

    /** Ends every session of the endpoints within {@code timeout} (plus the moment a cut takes). */
    public ShutdownReport run(Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        for (EndpointRuntime e : endpoints) {
            e.closeSessionsAtBoundary(this::ask);
        }
        awaitAll(deadline);
        List<EndpointRuntime.SessionHandle> busy = new ArrayList<>();
        ending.forEach((s, f) -> {
            if (!f.isDone()) {
                busy.add(s);
            }
        });
        busy.forEach(EndpointRuntime.SessionHandle::cut);
        awaitAll(System.nanoTime() + CUT_WAIT.toNanos());
        List<SessionEnd> ends = new ArrayList<>();
        ending.values().forEach(f -> ends.add(f.getNow(SessionEnd.CUT)));
        return ShutdownReport.of(ends, Duration.ofNanos(System.nanoTime() - start), timeout);
    }

    private void ask(EndpointRuntime.SessionHandle s) {
        ending.computeIfAbsent(s, EndpointRuntime.SessionHandle::closeAtBoundary);
    }

    /** Waits until every session asked so far has ended, or {@code deadline}; asked late ones too. */
    private void awaitAll(long deadline) throws InterruptedException {
        while (true) {
            List<CompletableFuture<SessionEnd>> now = List.copyOf(ending.values());
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                CompletableFuture.allOf(now.toArray(CompletableFuture[]::new)).get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return;
            } catch (ExecutionException e) {
                throw new IllegalStateException("a session's end never fails", e);
            }
            if (ending.size() == now.size()) {
                return;
            }
        }
    }
}
