package dev.sluice.server.switchover;

/**
 * A switchover refused or called off, with a message that says why and in what state it left the
 * cluster. {@link #conflict()} tells a refusal of the request itself (unknown target, another
 * switchover running) from a failure on the way.
 */
public final class SwitchoverException extends RuntimeException {
    private final boolean conflict;

    SwitchoverException(String message) {
        this(message, null);
    }

    SwitchoverException(String message, Throwable cause) {
        super(message, cause);
        this.conflict = false;
    }

    private SwitchoverException(String message, boolean conflict) {
        super(message);
        this.conflict = conflict;
    }

    /** The request cannot be carried out as things are (nothing was changed). */
    public static SwitchoverException refused(String message) {
        return new SwitchoverException(message, true);
    }

    public boolean conflict() {
        return conflict;
    }
}
