package dev.sluice.server.auth;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * When the accounts are read again from the primary: every session that needs a fresh look asks
 * here, and all of them share the reads, which start at most once per {@code minInterval}.
 *
 * <p>A refused login may only be refused after a read that <em>started after</em> the check that
 * refused it: an account created or changed a moment before that check is then seen. So a request
 * never joins a read already running (it may have read the table before the account existed); it
 * joins the read waiting to start, or makes one — at once when the last read started longer than
 * {@code minInterval} ago and none is running, otherwise as soon as both are over. At most one
 * read runs and at most one waits, whatever the number of requests: no stream of bad logins turns
 * into a stream of queries on the primary, and a request waits at most the interval plus one read.
 *
 * <p>The clock and the timer are injected, so the rule is tested without waiting. Thread-safe.
 */
public final class AccountReloads {

    /** Runs a task once {@code delayNanos} have passed. */
    @FunctionalInterface
    public interface Timer {
        void schedule(Runnable task, long delayNanos);
    }

    /** The timer of the JDK's common pool: the read itself only starts I/O on an event loop. */
    public static final Timer COMMON_POOL = (task, delayNanos) -> CompletableFuture.runAsync(task,
            CompletableFuture.delayedExecutor(delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS));

    private final Supplier<CompletableFuture<Void>> read;
    private final long minIntervalNanos;
    private final LongSupplier nanoClock;
    private final Timer timer;
    private boolean everStarted;
    private long lastStartNanos;
    private CompletableFuture<Void> running;
    /** The read waiting to start, completed when it has ended; null when none waits. */
    private CompletableFuture<Void> waiting;
    private boolean waitingScheduled;

    /** @param read reads the accounts and installs them; its future completes (normally) when it has ended */
    public AccountReloads(Supplier<CompletableFuture<Void>> read, Duration minInterval, LongSupplier nanoClock,
            Timer timer) {
        this.read = read;
        this.minIntervalNanos = minInterval.toNanos();
        this.nanoClock = nanoClock;
        this.timer = timer;
    }

    /**
     * The first read, at start: at once, or the running one. Completes when the accounts are in
     * place (or could not be read).
     */
    public synchronized CompletableFuture<Void> initial() {
        if (running != null) {
            return running;
        }
        return start();
    }

    /** Completes once a read that started after this call has ended. */
    public synchronized CompletableFuture<Void> fresh() {
        if (waiting != null) {
            return waiting;
        }
        waiting = new CompletableFuture<>();
        CompletableFuture<Void> mine = waiting;
        scheduleWaitingIfFree();
        return mine;
    }

    /** Starts the waiting read when nothing runs: now, or once the interval since the last start is over. */
    private void scheduleWaitingIfFree() {
        if (waiting == null || waitingScheduled || running != null) {
            return;
        }
        long left = everStarted ? lastStartNanos + minIntervalNanos - nanoClock.getAsLong() : 0;
        if (left <= 0) {
            startWaiting();
            return;
        }
        waitingScheduled = true;
        timer.schedule(this::startWaitingNow, left);
    }

    private synchronized void startWaitingNow() {
        waitingScheduled = false;
        if (waiting != null && running == null) {
            startWaiting();
        }
    }

    private void startWaiting() {
        CompletableFuture<Void> promised = waiting;
        waiting = null;
        start().whenComplete((v, e) -> promised.complete(null));
    }

    private CompletableFuture<Void> start() {
        everStarted = true;
        lastStartNanos = nanoClock.getAsLong();
        CompletableFuture<Void> done = new CompletableFuture<>();
        running = done;
        CompletableFuture<Void> reading;
        try {
            reading = read.get();
        } catch (RuntimeException e) {
            reading = CompletableFuture.failedFuture(e);
        }
        reading.whenComplete((v, e) -> ended(done));
        return done;
    }

    private void ended(CompletableFuture<Void> done) {
        synchronized (this) {
            if (running == done) {
                running = null;
            }
            scheduleWaitingIfFree();
        }
        // Outside the lock: whoever waited goes on with its check on its own thread of control.
        done.complete(null);
    }

    /** Whether a read is running (for tests). */
    synchronized boolean isReading() {
        return running != null;
    }
}
