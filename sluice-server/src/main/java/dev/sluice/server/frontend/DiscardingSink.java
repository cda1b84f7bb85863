package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import io.netty.buffer.ByteBuf;

/** A response nobody reads: the copy of a session command that ran on a secondary backend. */
class DiscardingSink implements ResponseSink {
    private final BackgroundAnswers answers;

    DiscardingSink(BackgroundAnswers answers) {
        this.answers = answers;
    }

    BackgroundAnswers answers() {
        return answers;
    }

    @Override
    public void onBytes(ByteBuf bytes) {
        bytes.release();
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
    }

    /** The connection failed under one of Sluice's own requests: for the session, it is lost between commands. */
    @Override
    public void onFailure(BackendConnection backend, Throwable cause) {
        answers.lost(backend);
    }
}
