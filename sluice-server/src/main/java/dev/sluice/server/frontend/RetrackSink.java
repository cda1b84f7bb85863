package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;

/**
 * The answer to Sluice's own request that a backend track GTIDs again, sent after a client's
 * {@code SET session_track_system_variables}. Nothing to read; once it is in, the connection
 * may go back to a transaction pool.
 */
final class RetrackSink extends DiscardingSink {
    RetrackSink(BackgroundAnswers answers) {
        super(answers);
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        answers().answered();
    }
}
