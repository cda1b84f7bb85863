package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseKind;
import io.netty.buffer.ByteBuf;

/** A command a newly opened backend runs before anything else, to take on the session's state. */
record ReplayCommand(ByteBuf packet, ResponseKind kind) {
}
