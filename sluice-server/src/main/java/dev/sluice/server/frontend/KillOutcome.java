package dev.sluice.server.frontend;

import dev.sluice.server.runtime.NodeRef;

/** What a {@code KILL} by Sluice's id came to, decided before anything is answered or sent. */
sealed interface KillOutcome {
    /** The session was ended, or had nothing running to interrupt: an OK, as the server answers. */
    record Done() implements KillOutcome {
    }

    /** Refused with the server's own error (unknown thread, not owner). */
    record Refused(int code, String sqlState, String message) implements KillOutcome {
    }

    /** {@code KILL QUERY}: the target's statement runs on {@code node} as server thread {@code thread}. */
    record InterruptOn(NodeRef node, long thread) implements KillOutcome {
    }

    /** The killer named its own connection: it ends, with no answer, as on the server. */
    record OwnConnection() implements KillOutcome {
    }
}
