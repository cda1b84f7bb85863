package dev.sluice.server.frontend;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.function.BiConsumer;

/**
 * Makes a client command fit the node it was routed to before it is sent: for a prepared
 * statement, prepares it there if needed and puts that connection's statement id in the packet.
 */
interface Binding {
    /**
     * Calls {@code send} with the connection to {@code node} the packet was made for and the packet
     * (possibly a new one), once it can be: the packet must go to that very connection, since the
     * statement id in it names a statement of that connection only.
     */
    void bind(NodeRef node, ByteBuf frame, BiConsumer<BackendConnection, ByteBuf> send);
}
