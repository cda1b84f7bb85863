package dev.sluice.server.monitor;

import java.util.concurrent.TimeUnit;

/**
 * When a check's timeout fires, tells a node that did not answer from a proxy that could not listen
 * (BEHAVIOUR §4, missed checks). The timeout runs on the same event loop that reads the node's
 * answer; when that loop was held up (a long GC pause, a machine starved of CPU), the timeout task
 * runs late and can run before the answer already waiting in the socket is read. Counting that as
 * a miss would mark every node down at once for a stall of Sluice's own. So a timeout that fires
 * well after its deadline is given one more allowance, and only a second one counts. Pure.
 */
record CheckDeadline(long deadlineNanos, long allowanceMillis, boolean extended) {
    /** Lateness that no healthy loop reaches: timer ticks and task queues run in milliseconds. */
    static final long STALL_MILLIS = 100;

    static CheckDeadline start(long nowNanos, long allowanceMillis) {
        return new CheckDeadline(nowNanos + TimeUnit.MILLISECONDS.toNanos(allowanceMillis), allowanceMillis, false);
    }

    /** How late the timeout ran, in milliseconds, when it runs at {@code nowNanos}. */
    long lateMillis(long nowNanos) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(nowNanos - deadlineNanos));
    }

    /**
     * True when the loop was stalled past this deadline by more than the stall threshold and by
     * more than half the allowance, and the check has not been given more time already.
     */
    boolean proxyStalled(long nowNanos) {
        long late = lateMillis(nowNanos);
        return !extended && late >= STALL_MILLIS && late * 2 >= allowanceMillis;
    }

    /** The one further allowance, counted from when the late timeout ran. */
    CheckDeadline extendedFrom(long nowNanos) {
        return new CheckDeadline(nowNanos + TimeUnit.MILLISECONDS.toNanos(allowanceMillis), allowanceMillis, true);
    }
}
