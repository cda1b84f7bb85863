package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.server.backend.BackendConnection;
import io.netty.channel.embedded.EmbeddedChannel;

/** Backend connections over {@link EmbeddedChannel}s: what a session sends stays in the channel's outbound queue. */
final class FakeBackends {
    static final long CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_TRANSACTIONS
            | Capabilities.CLIENT_SESSION_TRACK;
    private static final HandshakeV10 GREETING = new HandshakeV10("10.11.19-MariaDB", 1, new byte[20], CAPABILITIES,
            45, 0, "mysql_native_password");

    private FakeBackends() {
    }

    /** A logged-in connection to node {@code nodeId} named {@code name}. */
    static BackendConnection connection(String name, int nodeId) {
        return new BackendConnection(name, nodeId, new EmbeddedChannel(), GREETING, CAPABILITIES);
    }
}
