package dev.sluice.server.runtime;

/** How a session ended while Sluice was stopping (BEHAVIOUR §13). */
public enum SessionEnd {
    /** Sluice closed it at a transaction boundary: idle, or once its transaction ended. */
    AT_BOUNDARY,
    /** Its client closed it, or it ended on its own (an error, the idle timeout, a KILL). */
    BY_ITSELF,
    /** Still in a transaction or a statement when the shutdown timeout ran out: cut. */
    CUT
}
