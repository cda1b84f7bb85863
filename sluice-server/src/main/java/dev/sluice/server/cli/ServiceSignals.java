package dev.sluice.server.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The signals a service manager sends (BEHAVIOUR §13): SIGTERM to stop, SIGHUP to read the
 * configuration again.
 *
 * <p>{@code sun.misc.Signal} (module {@code jdk.unsupported}, there in every Java 17+ runtime)
 * rather than a shutdown hook alone, for two reasons. A shutdown hook runs only once the JVM is
 * already exiting, and a JVM that exits on SIGTERM reports status 143, which systemd and the like
 * count as a failure; handling SIGTERM ourselves lets the graceful stop run first and the process
 * then exit 0. And the JVM has no API at all for SIGHUP: by default it treats it as SIGTERM.
 */
final class ServiceSignals {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceSignals.class);

    private ServiceSignals() {
    }

    /**
     * Runs {@code action} on each {@code name} signal (e.g. {@code "TERM"}), on a thread of its own;
     * returns false, having said why, where the signal cannot be handled (a JVM run with
     * {@code -Xrs}, or a signal the launcher set to be ignored, as {@code nohup} does with SIGHUP).
     */
    static boolean on(String name, Runnable action) {
        try {
            // For a signal ignored since the process started, the JVM keeps it ignored and answers
            // with SIG_IGN as the old handler instead of refusing: ours was not installed.
            if (Signal.handle(new Signal(name), s -> action.run()) == SignalHandler.SIG_IGN) {
                LOG.warn("SIG{} is ignored by this process (it was started ignoring it, as nohup does with SIGHUP): "
                        + "Sluice cannot act on it{}", name, name.equals("HUP")
                                ? "; reload the configuration through the admin API, or start Sluice without nohup"
                                : "");
                return false;
            }
            return true;
        } catch (IllegalArgumentException e) {
            LOG.warn("SIG{} cannot be handled in this JVM ({}); it keeps its default effect", name, e.getMessage());
            return false;
        }
    }
}
