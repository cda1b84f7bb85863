package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;

/** Response of a session command on a non-answering backend: on error the backend leaves the session. */
final class SessionCommandSink extends DiscardingSink {
    /** The client's command this answers, judged against the answering backend's; null for Sluice's own. */
    private final SessionCommandAgreement agreement;

    /** The answer to a session command of Sluice's own: a backend that refuses it leaves. */
    SessionCommandSink(BackgroundAnswers answers) {
        this(answers, null);
    }

    SessionCommandSink(BackgroundAnswers answers, SessionCommandAgreement agreement) {
        super(answers);
        this.agreement = agreement;
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        if (agreement != null) {
            agreement.otherAnswered(backend, tracker.endedWithError());
        } else if (tracker.endedWithError()) {
            answers().refused(backend);
        }
        // The backend may belong to a node being drained or removed that was too busy to leave before.
        answers().answered();
    }
}
