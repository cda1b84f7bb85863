package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.server.backend.BackendConnection;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One session command (SET, USE, COM_INIT_DB, COM_SET_OPTION) sent to every open backend of a
 * session: the client gets the answering backend's answer (the primary's), and every other
 * backend must end in the state that answer says. One that refuses what the answering backend
 * accepted leaves the session: its node cannot take the session's state. One that accepted what
 * the answering backend refused is closed: it now carries a state the session does not have, and
 * its node gets a new connection, given the session's state, when it is next needed.
 */
final class SessionCommandAgreement {
    private final BackgroundAnswers answers;
    private final SessionBackends backends;
    /** Backends that accepted the command before the answering one's answer was in. */
    private final List<BackendConnection> acceptedEarly = new ArrayList<>();
    private boolean answered;
    private boolean answeringRefused;

    private SessionCommandAgreement(BackgroundAnswers answers, SessionBackends backends) {
        this.answers = answers;
        this.backends = backends;
    }

    /**
     * Sends a copy of the session command {@code frame} to every open backend but the answering
     * one's, each followed by what {@code then} sends it; the answering backend is sent the frame
     * itself, with the returned agreement's {@link #answering} listener.
     */
    static SessionCommandAgreement sendToOthers(BackgroundAnswers answers, SessionBackends backends,
            int answeringNode, ByteBuf frame, ResponseKind kind, Consumer<BackendConnection> then) {
        SessionCommandAgreement agreement = new SessionCommandAgreement(answers, backends);
        for (BackendConnection other : backends.all()) {
            if (other.nodeId() != answeringNode) {
                other.send(frame.retainedDuplicate(), kind, agreement.other());
                then.accept(other);
            }
        }
        return agreement;
    }

    /** {@code then}, told of the answering backend's answer once the other backends are judged by it. */
    CommandListener answering(CommandListener then) {
        return ForwardingListener.completingFirst(then, tracker -> answered(tracker.endedWithError()));
    }

    /** Where another backend's answer to the command goes. */
    private SessionCommandSink other() {
        return new SessionCommandSink(answers, this);
    }

    void otherAnswered(BackendConnection backend, boolean refused) {
        if (refused) {
            answers.refused(backend);
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
        if (backends.all().contains(backend)) {
            backends.remove(backend);
        }
    }
}
