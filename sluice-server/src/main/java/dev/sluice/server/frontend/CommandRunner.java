package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs the client's command in flight: sends it to its backend, and ends it when the answer is
 * complete, when the backend fails, or when Sluice answered it itself. Ending a command is where
 * the session looks around: nodes it may now leave ({@link NodeDepartures}), connections it may
 * hand back to a transaction pool ({@link TransactionPoolHandBack}), the next queued command.
 *
 * <p>It also hears the answers no client waits for ({@link BackgroundAnswers}), which may free a
 * backend the same way.
 */
final class CommandRunner implements CurrentCommand, BackgroundAnswers {
    private final EventLoop loop;
    private final ClientInbox inbox;
    private final ClientReplies replies;
    private final ClientForwarder forwarder;
    private final SessionBackends backends;
    private final EndpointRuntime endpoint;
    private final ClientStatus status;
    private final ReadRetries retries;
    private final TransactionPoolHandBack handBack;
    private final NodeDepartures departures;
    private final BackendFailures failures;
    private final StatementCosts costs;
    private final BooleanSupplier transactionPool;
    private final Runnable closeSession;
    /** Records the transaction open on the primary for a replay; null on an endpoint that does not replay. */
    private final TransactionRecording recording;
    /** The sink the command in flight was sent with (a LOCAL INFILE answer continues on it). */
    private ResponseSink sending;
    /** The listener of the command running on a backend. */
    private CommandListener current = CommandListener.NONE;
    /** Node running the client's current command, for the active-request count; -1 when none. */
    private int requestNode = -1;

    /** @param transactionPool whether the endpoint pools connections per transaction (it may change) */
    CommandRunner(EventLoop loop, ClientInbox inbox, ClientReplies replies, ClientForwarder forwarder,
            SessionBackends backends, EndpointRuntime endpoint, ClientStatus status, ReadRetries retries,
            TransactionPoolHandBack handBack, NodeDepartures departures, BackendFailures failures,
            StatementCosts costs, BooleanSupplier transactionPool, Runnable closeSession,
            TransactionRecording recording) {
        this.loop = loop;
        this.inbox = inbox;
        this.replies = replies;
        this.forwarder = forwarder;
        this.backends = backends;
        this.endpoint = endpoint;
        this.status = status;
        this.retries = retries;
        this.handBack = handBack;
        this.departures = departures;
        this.failures = failures;
        this.costs = costs;
        this.transactionPool = transactionPool;
        this.closeSession = closeSession;
        this.recording = recording;
    }

    // ---- sending ----

    @Override
    public void forward(NodeRef node, ByteBuf frame, ResponseKind kind, CommandListener listener) {
        inbox.running();
        withBackend(node, frame, b -> sendNow(b, frame, kind, listener));
    }

    @Override
    public void forwardOn(BackendConnection b, ByteBuf frame, ResponseKind kind, CommandListener listener) {
        inbox.running();
        sendNow(b, frame, kind, listener);
    }

    @Override
    public void withBackend(NodeRef node, ByteBuf holdUntilDone, Consumer<BackendConnection> action) {
        BackendConnection ready = backends.ready(node.id());
        if (ready != null) {
            action.accept(ready);
            return;
        }
        Future<BackendConnection> opened = backends.open(node);
        opened.addListener(f -> {
            if (sessionClosed()) {
                releaseIfHeld(holdUntilDone);
                return;
            }
            if (f.isSuccess()) {
                action.accept((BackendConnection) f.getNow());
            } else {
                releaseIfHeld(holdUntilDone);
                failures.couldNotOpen(this, node, f.cause());
            }
        });
    }

    private static void releaseIfHeld(ByteBuf held) {
        if (held != null && held.refCnt() > 0) {
            held.release();
        }
    }

    private void sendNow(BackendConnection b, ByteBuf frame, ResponseKind kind, CommandListener listener) {
        ResponseSink leg = forwarder.begin(b, listener, this::onResponseComplete, this::onBackendFailure);
        if (recording != null) {
            leg = recording.around(b, frame, leg);
        }
        sending = leg;
        current = listener;
        requestNode = b.nodeId();
        endpoint.requestStarted(requestNode);
        if (payloadLength(frame) == Packets.MAX_PAYLOAD) {
            handBack.lockByProtocol();
            b.expect(kind, leg);
            b.write(frame, true);
            inbox.sendingTail(b, true);
        } else {
            b.send(frame, kind, leg);
        }
        inbox.drain();
    }

    @Override
    public void sendBefore(NodeRef node, ByteBuf packet) {
        withBackend(node, packet, b -> b.send(packet, ResponseKind.RESULT, new DiscardingSink(this)));
    }

    @Override
    public void sendBeforeInTransaction(NodeRef node, ByteBuf packet) {
        withBackend(node, packet, b -> {
            ResponseSink sink = new DiscardingSink(this);
            b.send(packet, ResponseKind.RESULT, recording == null ? sink : recording.around(b, packet, sink));
        });
    }

    @Override
    public void sendWithoutResponse(BackendConnection b, ByteBuf frame) {
        if (recording != null) {
            recording.longDataSent(b, frame);
        }
        boolean more = payloadLength(frame) == Packets.MAX_PAYLOAD;
        b.write(frame, !more);
        if (more) {
            inbox.sendingTail(b, false);
        } else {
            inbox.idle();
        }
        inbox.drain();
    }

    private static int payloadLength(ByteBuf frame) {
        return Packets.payloadLength(frame, frame.readerIndex());
    }

    // ---- the answer ----

    private void onResponseComplete(BackendConnection backend, ResponseTracker tracker) {
        if (tracker.lastStatus() >= 0) {
            status.set(tracker.lastStatus());
        }
        if (tracker.isLocalInfileRequest()) {
            handBack.lockByProtocol();
            inbox.uploading(backend);
            backend.expect(ResponseKind.RESULT, sending);
            inbox.drain();
            return;
        }
        CommandListener done = current;
        current = CommandListener.NONE;
        inbox.idle();
        requestEnded();
        costs.answered(backend.nodeId(), tracker);
        retries.release();
        handBack.statementAnswered(tracker.lastWarnings());
        done.onComplete(backend, tracker);
        departures.leaveRetiredNodes();
        handBackAtBoundary();
        inbox.drain();
    }

    private void onBackendFailure(BackendConnection backend, Throwable cause, long bytesForwarded) {
        if (sessionClosed()) {
            return;
        }
        backends.remove(backend);
        CommandListener done = current;
        current = CommandListener.NONE;
        requestEnded();
        boolean midResponse = bytesForwarded > 0 || inbox.streamsTo(backend);
        failures.duringCommand(this, backend, cause, midResponse, done);
    }

    @Override
    public void failedOn(BackendConnection backend, Throwable cause) {
        onBackendFailure(backend, cause, 0);
    }

    /** The command's request is over for the node's active-request count. */
    void requestEnded() {
        if (requestNode >= 0) {
            endpoint.requestEnded(requestNode);
            requestNode = -1;
        }
    }

    /** Transaction pool: the connections go back if the session stands between two transactions. */
    void handBackAtBoundary() {
        handBack.atBoundary(status.flags(), inbox.nothingInTransit() && inbox.isEmpty());
    }

    // ---- ended by Sluice ----

    @Override
    public void hold() {
        inbox.running();
    }

    @Override
    public void done() {
        inbox.idle();
    }

    @Override
    public void failed(int code, String sqlState, String message) {
        inbox.idle();
        retries.release();
        replies.error(code, sqlState, message);
        inbox.drain();
    }

    @Override
    public void resume() {
        inbox.drain();
    }

    @Override
    public void takeNextFrame(Consumer<ByteBuf> step) {
        inbox.authenticating(step);
    }

    @Override
    public boolean sessionClosed() {
        return inbox.phase() == SessionPhase.CLOSED;
    }

    @Override
    public void closeSession() {
        closeSession.run();
    }

    @Override
    public void failAndClose(int code, String sqlState, String message) {
        replies.error(code, sqlState, message);
        closeSession.run();
    }

    // ---- answers no client waits for ----

    @Override
    public void answered() {
        if (departures.anyRetiring() || transactionPool.getAsBoolean()) {
            // Later, once the backend has counted this answer as no longer pending: a connection
            // still answering one of these was kept from the pool at the boundary (releaseToPool).
            loop.execute(() -> {
                if (inbox.phase() == SessionPhase.IDLE && inbox.isEmpty()) {
                    departures.leaveRetiredNodes();
                    handBackAtBoundary();
                }
            });
        }
    }

    @Override
    public void refused(BackendConnection backend) {
        failures.failedSessionCommand(backend);
    }

    @Override
    public void lost(BackendConnection backend) {
        backends.lost(backend);
    }
}
