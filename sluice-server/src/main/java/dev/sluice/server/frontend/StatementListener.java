package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.server.backend.BackendConnection;
import io.netty.buffer.ByteBuf;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the response of a routed statement for what routing must learn: the final status
 * flags (transaction state), success or failure, and the GTID of a commit reported by session
 * tracking. One per session, re-armed for each statement; it may delegate to a command's own
 * listener (a PREPARE's id rewriting).
 *
 * <p>It also keeps each connection's state tag honest: a connection that ran anything but a
 * statement that leaves no trace (see {@link Traceless}), or whose answer ended in an error or
 * with warnings, carries state no tag describes ({@link BackendConnection#stateUnknown()}).
 */
final class StatementListener extends ForwardingListener {
    static final String LAST_GTID = "last_gtid";

    private static final Logger LOG = LoggerFactory.getLogger(StatementListener.class);

    private final long connectionId;
    private final RoutingSession routing;
    private final PreviousStatement previous;
    /** How backends lay out OK packets: the client's choices, with session tracking always asked. */
    private final long backendCapabilities;
    private CommandListener inner = CommandListener.NONE;
    private boolean traceless;

    StatementListener(long connectionId, RoutingSession routing, PreviousStatement previous, long clientCapabilities) {
        this.connectionId = connectionId;
        this.routing = routing;
        this.previous = previous;
        this.backendCapabilities = clientCapabilities | Capabilities.CLIENT_SESSION_TRACK;
    }

    /** Arms the listener for the next statement; {@code leavesNoTrace} as {@link Traceless} says. */
    StatementListener with(CommandListener commandOwn, boolean leavesNoTrace) {
        this.inner = commandOwn;
        this.traceless = leavesNoTrace;
        previous.started();
        return this;
    }

    @Override
    public void onOk(ByteBuf buf, int payloadIndex, int length) {
        previous.onOk(buf, payloadIndex, length);

        ByteBuf ok = buf.slice(payloadIndex, length);
        int status = OkPacket.statusFlagsOf(ok, backendCapabilities);
        if (ServerStatus.has(status, ServerStatus.SESSION_STATE_CHANGED)) {
            learnGtid(ok);
        }
        inner.onOk(buf, payloadIndex, length);
    }

    /**
     * The session's GTID from an OK that reports changed state. State that cannot be read may
     * have held one: the session then reads the primary until it learns the next (BEHAVIOUR §5),
     * and says so, rather than let a replica without the write answer.
     */
    private void learnGtid(ByteBuf ok) {
        String value;
        try {
            value = OkPacket.sessionTrackedVariable(ok, backendCapabilities, LAST_GTID).orElse("");
        } catch (MalformedPacketException e) {
            unreadable(e.getMessage());
            return;
        }
        if (value.isEmpty()) {
            return;
        }
        Optional<GtidPosition> gtid = GtidPosition.parse(value);
        if (gtid.isPresent()) {
            routing.onCommittedGtid(gtid.get());
        } else {
            unreadable("last_gtid '" + value + "' is not a GTID position");
        }
    }

    /**
     * The client did not negotiate CLIENT_DEPRECATE_EOF, so neither did its backends, and a
     * statement answering rows changed the session's state: a write's GTID may be the change.
     */
    @Override
    public void onSessionStateNotSent() {
        if (!routing.ownPositionUnknown()) {
            LOG.info("session {}: a statement that answered rows changed the session state, which an EOF packet"
                    + " cannot carry; its reads that must see its writes go to the primary until it commits again",
                    connectionId);
        }
        routing.onSessionStateUnreadable();
        super.onSessionStateNotSent();
    }

    private void unreadable(String why) {
        if (!routing.ownPositionUnknown()) {
            LOG.warn("session {}: the session state of a server's OK could not be read ({}); a GTID of the"
                    + " session's may be in it, so its reads that must see its writes go to the primary until"
                    + " it commits again", connectionId, why);
        }
        routing.onSessionStateUnreadable();
    }

    @Override
    protected CommandListener delegate() {
        return inner;
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        previous.ended(tracker.endedWithError(), tracker.resultRows());
        if (!traceless || tracker.endedWithError() || tracker.lastWarnings() > 0) {
            backend.stateUnknown();
        }
        if (tracker.endedWithError()) {
            routing.onError();
        } else {
            routing.onResponse(tracker.lastStatus() >= 0 ? tracker.lastStatus() : 0);
        }
        CommandListener own = inner;
        inner = CommandListener.NONE;
        own.onComplete(backend, tracker);
    }

    @Override
    public void onFailure(BackendConnection backend, Throwable cause) {
        previous.ended(true, -1);
        backend.stateUnknown();
        routing.onError();
        CommandListener own = inner;
        inner = CommandListener.NONE;
        own.onFailure(backend, cause);
    }
}
