package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import io.netty.buffer.ByteBuf;

/** A response nobody reads: the copy of a session command that ran on a secondary backend. */
class DiscardingSink implements ResponseSink {
    private final ClientSession session;

    DiscardingSink(ClientSession session) {
        this.session = session;
    }

    ClientSession session() {
        return session;
    }

    @Override
    public void onBytes(ByteBuf bytes) {
        bytes.release();
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
    }

    @Override
    public void onFailure(BackendConnection backend, Throwable cause) {
        // The statements prepared on that connection went with it: a replacement connection must
        // prepare them again, not be sent ids that name other statements there, or none (1243).
        boolean current = session.backends().ready(backend.nodeId()) == backend;
        session.backends().remove(backend);
        if (current) {
            session.statements().forgetNode(backend.nodeId());
        }
    }
}
