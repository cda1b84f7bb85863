package dev.sluice.bench.consistency;

import java.time.Duration;

/**
 * The time of one run: an unmeasured warm-up (connections settle, the JIT compiles the client,
 * Sluice's monitor has seen the new rows), then the measured part. Iterations look at the clock
 * themselves, so no coordination between sessions is needed.
 */
record RunWindow(long measureFromNanos, long untilNanos, Duration measured) {

    static RunWindow startingNow(Duration warmup, Duration measured) {
        long from = System.nanoTime() + warmup.toNanos();
        return new RunWindow(from, from + measured.toNanos(), measured);
    }

    boolean measuring(long nanos) {
        return nanos - measureFromNanos >= 0 && nanos - untilNanos < 0;
    }

    boolean over(long nanos) {
        return nanos - untilNanos >= 0;
    }

    /** Sleeps until {@code nanos} on the {@link System#nanoTime()} clock. */
    static void sleepUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }
}
