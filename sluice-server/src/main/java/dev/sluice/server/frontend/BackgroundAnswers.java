package dev.sluice.server.frontend;

import dev.sluice.server.backend.BackendConnection;

/**
 * What the answers no client waits for tell the session: those of a session command's copies on
 * its other backends, and of Sluice's own requests (a held BEGIN, GTID tracking, user variables
 * given to replicas).
 */
interface BackgroundAnswers {
    /** The request was answered: its backend may be free to leave, or to go back to a pool, now. */
    void answered();

    /** The backend refused a session command: it leaves the session (BEHAVIOUR §3). */
    void refused(BackendConnection backend);

    /** The connection failed under the request: for the session, it is lost between commands. */
    void lost(BackendConnection backend);
}
