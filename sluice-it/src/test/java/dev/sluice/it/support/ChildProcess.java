package dev.sluice.it.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** How a test stops a program it started: asked first (SIGTERM), then made to (SIGKILL). */
final class ChildProcess {
    private ChildProcess() {
    }

    /** SIGTERM, and SIGKILL if it has not ended within {@code grace}; waits for its end. */
    static void stop(Process process, Duration grace) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
