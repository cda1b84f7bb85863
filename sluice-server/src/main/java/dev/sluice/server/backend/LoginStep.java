package dev.sluice.server.backend;

import dev.sluice.protocol.handshake.HandshakeV10;
import io.netty.buffer.ByteBuf;

/** What the backend login does after each packet from the server. */
sealed interface LoginStep {

    /** Send this payload with this sequence id. */
    record Reply(ByteBuf payload, int sequenceId) implements LoginStep {
    }

    /**
     * Send this SSLRequest payload with this sequence id, then do the TLS handshake and ask
     * {@link BackendLogin#onTlsReady()} for the login proper.
     */
    record StartTls(ByteBuf sslRequest, int sequenceId) implements LoginStep {
    }

    /** Nothing to send; wait for the next packet. */
    record Wait() implements LoginStep {
    }

    /** Logged in with these capabilities. */
    record Success(HandshakeV10 greeting, long capabilities) implements LoginStep {
    }

    /** Refused or broken. */
    record Failure(BackendException cause) implements LoginStep {
    }
}
