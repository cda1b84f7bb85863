package dev.sluice.server.cluster;

import java.time.Duration;
import java.util.Optional;

/**
 * The newest etcd revision of the shared configuration this instance has settled — run, or refused
 * as invalid — and whether it refused it. An admin change waits here until the watch has run the
 * revision it wrote, so its answer shows the change in effect on this instance too.
 */
final class SettledRevisions {
    private long newest;
    private long lastGood;
    private Optional<String> refusal = Optional.empty();

    synchronized void settle(long revision, Optional<String> refused) {
        if (revision <= newest) {
            return;
        }
        newest = revision;
        refusal = refused;
        if (refused.isEmpty()) {
            lastGood = revision;
        }
        notifyAll();
    }

    synchronized long newest() {
        return newest;
    }

    synchronized long lastGood() {
        return lastGood;
    }

    /**
     * Waits until {@code revision} or a later one is settled; the refusal when that one was refused.
     * A later revision settled in its place means the change was run and then superseded.
     */
    synchronized Optional<String> await(long revision, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (newest < revision) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.of("this instance has not run it within " + timeout.toMillis() + " ms");
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return newest == revision ? refusal : Optional.empty();
    }
}
