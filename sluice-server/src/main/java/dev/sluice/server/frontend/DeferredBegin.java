package dev.sluice.server.frontend;

import io.netty.buffer.ByteBuf;

/**
 * Transaction splitting (BEHAVIOUR §6): the client's BEGIN, held back until the transaction's first
 * write, when it is sent to the primary just before that write. A split transaction that never
 * writes never reaches the primary, and the held packet is simply released.
 */
final class DeferredBegin {
    private ByteBuf begin;

    /** Holds {@code packet}, replacing (and releasing) one held before. */
    void hold(ByteBuf packet) {
        release();
        begin = packet;
    }

    boolean isHeld() {
        return begin != null;
    }

    /** The held BEGIN, handed over to be sent; nothing is held afterwards. */
    ByteBuf take() {
        ByteBuf b = begin;
        begin = null;
        return b;
    }

    void release() {
        if (begin != null) {
            begin.release();
            begin = null;
        }
    }
}
