package dev.sluice.server.runtime;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many times a {@code SET GLOBAL} passed through Sluice and succeeded (BEHAVIOUR §7). A server
 * connection takes the session values of global variables ({@code max_allowed_packet} …) at its
 * login, and keeps them after a later {@code SET GLOBAL}, where a client's own new connection
 * would have the new ones. A pooled connection that took its values before the latest change is
 * reset before it serves a session again: COM_RESET_CONNECTION takes the globals anew. A global
 * changed without passing through Sluice is not seen.
 */
public final class GlobalsGeneration {
    private final AtomicLong generation = new AtomicLong();

    /** The generation now; read before a login or a reset, it is what that connection took. */
    public long current() {
        return generation.get();
    }

    /** A {@code SET GLOBAL} succeeded. */
    public void changed() {
        generation.incrementAndGet();
    }
}
