package dev.sluice.server.frontend;

import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;

/**
 * Makes a client command fit the node it was routed to before it is sent: for a prepared
 * statement, prepares it there if needed and puts that node's statement id in the packet.
 */
interface Binding {
    /** Calls {@code send} with the packet to send to {@code node} (possibly a new one), once it can be. */
    void bind(NodeRef node, ByteBuf frame, Consumer<ByteBuf> send);
}
