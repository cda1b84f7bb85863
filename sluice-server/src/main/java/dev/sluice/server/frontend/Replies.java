package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.response.OkPacket;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** Packets Sluice writes to clients itself: its own errors and OKs. */
final class Replies {
    private Replies() {
    }

    static ByteBuf error(ByteBufAllocator alloc, int sequenceId, long caps, int code, String sqlState, String message) {
        ByteBuf out = alloc.buffer(16 + message.length() * 3);
        new ErrPacket(code, sqlState, message).encode(out, sequenceId, caps);
        return out;
    }

    static ByteBuf ok(ByteBufAllocator alloc, int sequenceId, long caps, int status) {
        ByteBuf out = alloc.buffer(16);
        OkPacket.of(status).encode(out, sequenceId, caps);
        return out;
    }
}
