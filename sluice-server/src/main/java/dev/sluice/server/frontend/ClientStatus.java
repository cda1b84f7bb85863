package dev.sluice.server.frontend;

import dev.sluice.protocol.ServerStatus;

/**
 * The server status flags the client was last given (autocommit, in a transaction …): those of
 * the last answer a backend sent it, or of Sluice's own answer. Sluice's own OKs repeat them, and
 * the transaction pool reads from them whether the server still holds a transaction open.
 */
final class ClientStatus {
    private int flags = ServerStatus.AUTOCOMMIT;

    int flags() {
        return flags;
    }

    void set(int newFlags) {
        flags = newFlags;
    }

    boolean inTransaction() {
        return ServerStatus.has(flags, ServerStatus.IN_TRANS);
    }

    /** COM_RESET_CONNECTION or COM_CHANGE_USER: the flags of a fresh session. */
    void reset() {
        flags = ServerStatus.AUTOCOMMIT;
    }
}
