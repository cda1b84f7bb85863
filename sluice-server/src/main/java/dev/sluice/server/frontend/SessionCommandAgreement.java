package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import java.util.ArrayList;
import java.util.List;

/**
 * One session command (SET, USE, COM_INIT_DB, COM_SET_OPTION) sent to every open backend of a
 * session: the client gets the answering backend's answer (the primary's), and every other
 * backend must end in the state that answer says. One that refuses what the answering backend
 * accepted leaves the session: its node cannot take the session's state. One that accepted what
 * the answering backend refused is closed: it now carries a state the session does not have, and
 * its node gets a new connection, given the session's state, when it is next needed.
 */
final class SessionCommandAgreement {
    private final ClientSession session;
    /** Backends that accepted the command before the answering one's answer was in. */
    private final List<BackendConnection> acceptedEarly = new ArrayList<>();
    private boolean answered;
    private boolean answeringRefused;

    SessionCommandAgreement(ClientSession session) {
        this.session = session;
    }

    /** {@code then}, told of the answering backend's answer once the other backends are judged by it. */
    CommandListener answering(CommandListener then) {
        return new ForwardingListener() {
            @Override
            protected CommandListener delegate() {
                return then;
            }

            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                answered(tracker.endedWithError());
                then.onComplete(backend, tracker);
            }
        };
    }

    /** Where another backend's answer to the command goes. */
    Commands.SessionCommandSink other() {
        return new Commands.SessionCommandSink(session, this);
    }

    void otherAnswered(BackendConnection backend, boolean refused) {
        if (refused) {
            session.dropNode(backend);
        } else if (!answered) {
            acceptedEarly.add(backend);
        } else if (answeringRefused) {
            closeDiverged(backend);
        }
    }

    private void answered(boolean refused) {
        answered = true;
        answeringRefused = refused;
        if (refused) {
            acceptedEarly.forEach(this::closeDiverged);
        }
        acceptedEarly.clear();
    }

    private void closeDiverged(BackendConnection backend) {
        if (session.backends().all().contains(backend)) {
            session.backends().remove(backend);
        }
    }
}
