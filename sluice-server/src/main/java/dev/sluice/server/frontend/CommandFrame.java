package dev.sluice.server.frontend;

import io.netty.buffer.ByteBuf;

/**
 * The client's command packet (header included) while its handler reads it, and who owns it. The
 * session owns it until a path {@linkplain #take() takes} it — to send it, hold it, or release it
 * because the command ends here; from then on that path answers for it. Reading it ({@link #bytes()})
 * takes nothing. So when a handler fails inside Sluice, the session releases the packet exactly
 * when no path took it: never twice, and never a packet a backend write or a held BEGIN still uses.
 */
final class CommandFrame {
    private ByteBuf frame;

    CommandFrame(ByteBuf frame) {
        this.frame = frame;
    }

    /** The packet, to read; still the session's. */
    ByteBuf bytes() {
        if (frame == null) {
            throw new IllegalStateException("the command's packet was taken already");
        }
        return frame;
    }

    /** The packet, now the caller's to send, hold or release. */
    ByteBuf take() {
        ByteBuf taken = bytes();
        frame = null;
        return taken;
    }

    /** The command ends here, answered or refused by Sluice: its packet is released. */
    void release() {
        take().release();
    }

    /**
     * The command goes on as {@code replacement} (the text rewritten): the client's packet is
     * released, and the new one is the session's until taken.
     */
    void replace(ByteBuf replacement) {
        take().release();
        frame = replacement;
    }

    /** After a failure inside Sluice: releases the packet if no path took it. */
    void releaseUntaken() {
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}
