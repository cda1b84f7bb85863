package dev.sluice.server.monitor;

/**
 * Counts the checks a node missed in a row and says when they make it down (BEHAVIOUR §4,
 * {@code down-after}). One slow answer on a saturated machine is not a dead node: marking it down
 * at once would move its sessions' reads away and back with every flap. Pure.
 */
final class MissedChecks {
    private final int downAfter;
    private int inRow;

    MissedChecks(int downAfter) {
        if (downAfter < 1) {
            throw new IllegalArgumentException("downAfter must be at least 1, not " + downAfter);
        }
        this.downAfter = downAfter;
    }

    /** A check was answered: the node starts again from no missed check. */
    void answered() {
        inRow = 0;
    }

    /** A check was missed; true when the node is down after it. */
    boolean missed() {
        inRow = Math.min(inRow + 1, downAfter);
        return inRow == downAfter;
    }

    /** Checks missed in a row so far (at most {@link #downAfter()}). */
    int inRow() {
        return inRow;
    }

    int downAfter() {
        return downAfter;
    }
}
