package dev.sluice.server.runtime;

import java.time.Duration;
import java.util.Collection;

/**
 * What a graceful stop did to the sessions it found (BEHAVIOUR §13), for the log line an operator
 * reads after a SIGTERM.
 *
 * @param atBoundary sessions Sluice closed when they stood between two transactions
 * @param byThemselves sessions their clients (or an error, the idle timeout, a KILL) ended meanwhile
 * @param cut sessions still busy when the timeout ran out, closed in the middle of what they did
 * @param took from the last accepted connection to the last session gone
 */
public record ShutdownReport(int atBoundary, int byThemselves, int cut, Duration took, Duration timeout) {

    public static ShutdownReport of(Collection<SessionEnd> ends, Duration took, Duration timeout) {
        int boundary = 0;
        int themselves = 0;
        int cut = 0;
        for (SessionEnd e : ends) {
            switch (e) {
                case AT_BOUNDARY -> boundary++;
                case BY_ITSELF -> themselves++;
                case CUT -> cut++;
            }
        }
        return new ShutdownReport(boundary, themselves, cut, took, timeout);
    }

    public int sessions() {
        return atBoundary + byThemselves + cut;
    }

    /** Whether every session ended without being cut. */
    public boolean clean() {
        return cut == 0;
    }

    /** One line for the log. */
    public String describe() {
        return "%d session(s) at stop: %d closed at a transaction boundary, %d ended by themselves, %d cut after "
                .formatted(sessions(), atBoundary, byThemselves, cut)
                + "shutdown-timeout %d ms; took %d ms".formatted(timeout.toMillis(), took.toMillis());
    }
}
