package dev.sluice.server.frontend;

/**
 * Where a session's conversation with its client stands; it decides what the next client frame
 * is. The transitions are all in {@link ClientInbox}.
 *
 * <pre>
 *            command starts              answer complete, or answered by Sluice
 *   IDLE ─────────────────────▶ RUNNING ───────────────────────────────────────▶ IDLE
 *    │                          │  ▲  │ 16 MB+ packet         ▲
 *    │ long data, 16 MB+        │  │  └──────────▶ SENDING_TAIL (its last frame) ──┘ (or back to RUNNING)
 *    └────────▶ SENDING_TAIL    │  │ empty packet ends the file
 *                               │  └────────── UPLOADING ◀── server asks for a LOCAL INFILE file
 *                               └──▶ AUTHENTICATING ──▶ RUNNING   (COM_CHANGE_USER switching plugin)
 *   any ──▶ CLOSED
 * </pre>
 */
enum SessionPhase {
    /** No command runs: the next frame starts one. */
    IDLE,
    /** A command runs: sent, or waiting for a backend, a consistency wait or Sluice's own query. Frames queue. */
    RUNNING,
    /** A packet of 16 MB or more is still arriving: its next frames go to the backend that has its start. */
    SENDING_TAIL,
    /** The server asked for a LOCAL INFILE file: the client's data frames go to that backend until an empty one. */
    UPLOADING,
    /** The next frame answers Sluice's own authentication request, not a command. */
    AUTHENTICATING,
    /** The session has ended: frames are dropped. */
    CLOSED
}
