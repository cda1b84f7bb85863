package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.*;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import dev.sluice.server.consistency.ConsistentReads;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection in its command phase: takes the client's packets in order, decides
 * where each command runs, forwards it, and streams the answer back.
 *
 * <pre>
 *   client frames ──▶ ClientInbox ──▶ startCommand ──▶ Commands (route) ──▶ RouteExecutor ──▶ backend
 *                        ▲ (phase)                                                           │
 *                        └── onResponseComplete ◀── ClientForwarder (bytes to the client) ◀──┘
 * </pre>
 *
 * <p>Commands are taken one at a time, as the session's {@link SessionPhase} allows (see
 * {@link ClientInbox}). Everything runs on the client channel's event loop.
 */
public final class ClientSession implements EndpointRuntime.SessionHandle {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);

    private final Channel client;
    private final ProxyRuntime proxy;
    private final EndpointRuntime endpoint;
    private final long connectionId;
    private final byte[] scramble;
    private ClientIdentity identity;
    private Optional<String> database;
    private final SessionBackends backends;
    private final ClientForwarder forwarder;
    private final PreparedStatements statements = new PreparedStatements();
    private final ClientInbox inbox;
    private final ClientReplies replies;
    private final Commands commands;
    private final RoutingSession routing;
    private final RouteExecutor executor;
    private final ConsistentReads<RoutedCommand> consistency;
    private final ReadRetries retries = new ReadRetries();
    private final DeferredBegin deferredBegin = new DeferredBegin();
    private final BackendFailures failures = new BackendFailures(this, retries);
    private final SetShortcut setShortcut = new SetShortcut(this);
    private final TransactionPoolHandBack handBack;
    private final NodeDepartures departures;
    private final PreviousStatement previous = new PreviousStatement();
    private final ProxyRuntime.KillTarget killTarget = new SessionKillTarget(this);
    private int serverStatus = ServerStatus.AUTOCOMMIT;
    /** The listener of the command running on a backend. */
    private CommandListener current = CommandListener.NONE;
    /** Node running the client's current command, for the active-request count; -1 when none. */
    private int requestNode = -1;

    ClientSession(Channel client, ProxyRuntime proxy, EndpointRuntime endpoint, long connectionId, byte[] scramble,
            ClientIdentity identity, Optional<String> database) {
        this.client = client;
        this.proxy = proxy;
        this.endpoint = endpoint;
        this.connectionId = connectionId;
        this.scramble = scramble;
        this.identity = identity;
        this.database = database;
        this.backends = new SessionBackends(client.eventLoop(), proxy.connector(), endpoint, proxy.metrics(),
                this::onBackendLost, new SessionBackendState(this));
        this.forwarder = new ClientForwarder(client, this);
        this.routing = RoutingSession.open(endpoint.view(), ClientCharset.ofCollation(identity.collation()));
        this.inbox = new ClientInbox(client, this::startCommand);
        this.replies = new ClientReplies(client, inbox, () -> this.identity.capabilities(), proxy.metrics(),
                endpoint.name());
        this.handBack = new TransactionPoolHandBack(routing, backends, transactionPool());
        this.departures = new NodeDepartures(connectionId, client, endpoint::view, routing, backends, forwarder,
                inbox::commandRunning, proxy.config().monitor().queryTimeout());
        this.executor = new RouteExecutor(this);
        this.consistency = new ConsistentReads<>(new ConsistentReadSession(this), proxy.metrics(), endpoint.name(),
                () -> proxy.primaryPositions().next());
        this.commands = new Commands(this);
    }

    // ---- accessors used by the command handlers ----

    Channel client() {
        return client;
    }

    ProxyRuntime proxy() {
        return proxy;
    }

    EndpointRuntime endpoint() {
        return endpoint;
    }

    ClientIdentity identity() {
        return identity;
    }

    void identity(ClientIdentity newIdentity, Optional<String> newDatabase) {
        this.identity = newIdentity;
        this.database = newDatabase;
    }

    byte[] scramble() {
        return scramble.clone();
    }

    long connectionId() {
        return connectionId;
    }

    Optional<String> database() {
        return database;
    }

    void database(String db) {
        this.database = Optional.of(db);
    }

    SessionBackends backends() {
        return backends;
    }

    RoutingSession routing() {
        return routing;
    }

    RouteExecutor executor() {
        return executor;
    }

    Commands commands() {
        return commands;
    }

    ConsistentReads<RoutedCommand> consistency() {
        return consistency;
    }

    PreparedStatements statements() {
        return statements;
    }

    ClientForwarder forwarder() {
        return forwarder;
    }

    int serverStatus() {
        return serverStatus;
    }

    SetShortcut setShortcut() {
        return setShortcut;
    }

    /** The endpoint pools backend connections (session or transaction mode). */
    boolean pooled() {
        return endpoint.config().policy().connectionPool() != dev.sluice.routing.policy.ConnectionPoolMode.NONE;
    }

    ClientReplies replies() {
        return replies;
    }

    // ---- frames in ----

    /** A physical packet from the client (header included); the session owns it. */
    void onFrame(ByteBuf frame) {
        inbox.add(frame);
    }

    private static int payloadLength(ByteBuf frame) {
        return Packets.payloadLength(frame, frame.readerIndex());
    }

    private void startCommand(ByteBuf frame) {
        if (payloadLength(frame) == 0) {
            frame.release();
            failAndClose(ErrorCodes.ER_NET_PACKETS_OUT_OF_ORDER, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "empty command packet: the client and Sluice disagree about the protocol state");
            return;
        }
        int command = frame.getUnsignedByte(frame.readerIndex() + Packets.HEADER_SIZE);
        endpoint.recordCommand();
        retries.newCommand();
        try {
            commands.dispatch(command, frame);
        } catch (RuntimeException e) {
            // A bug on some input must cost this session only. Unhandled, the exception would surface
            // in whichever pipeline ran the dispatch (often a backend's, when a queued command starts
            // after a response) and leave this session waiting forever.
            LOG.warn("session {}: command {} failed inside Sluice; closing the session", connectionId,
                    dev.sluice.protocol.Command.name(command), e);
            failAndClose(ErrorCodes.ER_UNKNOWN_ERROR, "HY000", "Sluice could not process this command: " + e);
        }
    }

    // ---- sending ----

    /** Sends a whole client command to {@code node} and streams the response to the client. */
    void forward(NodeRef node, ByteBuf frame, ResponseKind kind, CommandListener listener) {
        inbox.running();
        withBackend(node, frame, b -> sendNow(b, frame, kind, listener));
    }

    /**
     * Sends a whole client command to that very connection and streams the response to the
     * client: the packet names something of that connection only (a prepared statement's id).
     */
    void forwardOn(BackendConnection b, ByteBuf frame, ResponseKind kind, CommandListener listener) {
        inbox.running();
        sendNow(b, frame, kind, listener);
    }

    /**
     * Keeps a copy of a read about to go to a replica (outside a transaction, or before the first
     * write of a split one): should the replica fail — or refuse the session's state — before any
     * byte of the answer reached the client, the read is routed again and the client sees no error
     * (BEHAVIOUR §3, §4). Taken before the packet is adapted to the node, so a retry
     * can adapt it to another.
     */
    void keepForRetry(RoutedCommand read, int nodeId) {
        // Inside a transaction that is not split (a read-only endpoint's), the reads belong to the
        // transaction's snapshot on that one replica: elsewhere they would read another.
        if (routing.inTransaction() && read.decision().reason() != RouteReason.TRANSACTION_SPLIT) {
            retries.release();
        } else {
            retries.keep(read, nodeId);
        }
    }

    /** See {@link ReadRetries#keepPrepare}. */
    void keepPrepareForRetry(ByteBuf frame, int nodeId, java.util.function.Consumer<ByteBuf> resend) {
        retries.keepPrepare(frame, nodeId, resend);
    }

    /** The first byte of the answer is on its way to the client: a failure can no longer be hidden. */
    void answerStarted() {
        retries.release();
    }

    /** Runs {@code action} with an open connection to {@code node}, opening it first if needed. */
    void withBackend(NodeRef node, ByteBuf holdUntilDone, java.util.function.Consumer<BackendConnection> action) {
        BackendConnection ready = backends.ready(node.id());
        if (ready != null) {
            action.accept(ready);
            return;
        }
        Future<BackendConnection> opened = backends.open(node);
        opened.addListener(f -> {
            if (isClosed()) {
                if (holdUntilDone != null && holdUntilDone.refCnt() > 0) {
                    holdUntilDone.release();
                }
                return;
            }
            if (f.isSuccess()) {
                action.accept((BackendConnection) f.getNow());
            } else {
                if (holdUntilDone != null && holdUntilDone.refCnt() > 0) {
                    holdUntilDone.release();
                }
                failures.couldNotOpen(node, f.cause());
            }
        });
    }

    private void sendNow(BackendConnection b, ByteBuf frame, ResponseKind kind, CommandListener listener) {
        ResponseSink leg = forwarder.begin(b, listener);
        current = listener;
        requestNode = b.nodeId();
        endpoint.requestStarted(requestNode);
        if (payloadLength(frame) == Packets.MAX_PAYLOAD) {
            lockToBackends();
            b.expect(kind, leg);
            b.write(frame, true);
            inbox.sendingTail(b, true);
        } else {
            b.send(frame, kind, leg);
        }
        inbox.drain();
    }

    private void requestEnded() {
        if (requestNode >= 0) {
            endpoint.requestEnded(requestNode);
            requestNode = -1;
        }
    }

    /** Transaction pooling: whether this session keeps its backend connections until it disconnects. */
    boolean lockedToBackends() {
        return handBack.locked();
    }

    void lockToBackends() {
        handBack.lockByProtocol();
    }

    /** What LAST_INSERT_ID() and ROW_COUNT() answer for this client (transaction pool). */
    PreviousStatement previous() {
        return previous;
    }

    boolean transactionPool() {
        return endpoint.config().policy().connectionPool() == dev.sluice.routing.policy.ConnectionPoolMode.TRANSACTION;
    }

    /** Keeps the session's connections through this statement and the next one. */
    void holdThroughNextStatement() {
        handBack.holdThroughNextStatement();
    }

    private void releaseIfAtBoundary() {
        handBack.atBoundary(serverStatus, inbox.nothingInTransit() && inbox.isEmpty());
    }

    // ---- responses ----

    void onResponseComplete(BackendConnection backend, ResponseTracker tracker) {
        if (tracker.lastStatus() >= 0) {
            serverStatus = tracker.lastStatus();
        }
        if (tracker.isLocalInfileRequest()) {
            lockToBackends();
            inbox.uploading(backend);
            backend.expect(ResponseKind.RESULT, forwarder.currentLeg());
            inbox.drain();
            return;
        }
        CommandListener done = current;
        current = CommandListener.NONE;
        inbox.idle();
        requestEnded();
        commands.answered(backend, tracker);
        retries.release();
        handBack.statementAnswered(tracker.lastWarnings());
        done.onComplete(backend, tracker);
        departures.leaveRetiredNodes();
        releaseIfAtBoundary();
        inbox.drain();
    }

    void onBackendFailure(BackendConnection backend, Throwable cause, long bytesForwarded) {
        failures.duringCommand(backend, cause, bytesForwarded);
    }

    /** The current command's listener, taken as its request ends without a complete answer. */
    CommandListener endRequest() {
        CommandListener done = current;
        current = CommandListener.NONE;
        requestEnded();
        return done;
    }

    /** Whether the client is uploading through {@code backend} (LOCAL INFILE data, a 16 MB+ packet). */
    boolean streamsUploadTo(BackendConnection backend) {
        return inbox.streamsTo(backend);
    }

    /** Whether a command of the client is running (its answer not yet complete). */
    boolean isAwaitingResponse() {
        return inbox.commandRunning();
    }

    @Override
    public void leaveRetiredNodesSoon() {
        client.eventLoop().execute(() -> {
            if (inbox.phase() == SessionPhase.IDLE && inbox.isEmpty()) {
                departures.leaveRetiredNodes();
            }
        });
    }

    /** The monitor found a node unreachable: see {@link NodeDepartures}. */
    @Override
    public void leaveUnreachableReplica(int nodeId) {
        client.eventLoop().execute(() -> {
            if (!isClosed()) {
                departures.leaveIfUnreachable(nodeId);
            }
        });
    }

    /** The login is complete: the session counts as live. */
    void started() {
        endpoint.register(this);
        proxy.registerSession(connectionId, killTarget);
        proxy.metrics().sessionOpened(endpoint.name());
        releaseIfAtBoundary();
    }

    /**
     * A session command (or Sluice's own follow-up) was answered on a backend the client was not
     * waiting for: that backend may be free to leave, or to go back to the transaction pool, now.
     */
    void sessionCommandAnswered() {
        if (departures.anyRetiring() || transactionPool()) {
            // Later, once the backend has counted this answer as no longer pending: a connection
            // still answering one of these was kept from the pool at the boundary (releaseToPool).
            client.eventLoop().execute(() -> {
                if (inbox.phase() == SessionPhase.IDLE && inbox.isEmpty()) {
                    departures.leaveRetiredNodes();
                    releaseIfAtBoundary();
                }
            });
        }
    }

    private void onBackendLost(BackendConnection backend) {
        failures.betweenCommands(backend);
    }

    void dropNode(BackendConnection backend) {
        failures.failedSessionCommand(backend);
    }

    // ---- replies Sluice writes itself ----


    /** The current command was answered by Sluice with an OK carrying {@code status}. */
    void answeredLocally(int status) {
        serverStatus = status;
        previous.answeredLocally(false);
    }

    void replyOk() {
        replies.ok(serverStatus);
    }

    /** Ends a command that Sluice answered itself. */
    void commandDone() {
        inbox.idle();
    }

    /** The current command waits for something (a backend, an internal PREPARE) before it is sent. */
    void holdCommand() {
        inbox.running();
    }

    /** The current command could not be run: the client gets this error and the session goes on. */
    void commandFailed(int code, String sqlState, String message) {
        inbox.idle();
        retries.release();
        replies.error(code, sqlState, message);
        inbox.drain();
    }

    /** Sends a command that gets no response (COM_STMT_SEND_LONG_DATA) to that connection and moves on. */
    void sendWithoutResponse(BackendConnection b, ByteBuf frame) {
        boolean more = payloadLength(frame) == Packets.MAX_PAYLOAD;
        b.write(frame, !more);
        if (more) {
            inbox.sendingTail(b, false);
        } else {
            inbox.idle();
        }
        inbox.drain();
    }

    /** The next client frame is an answer to an authentication exchange, not a command. */
    void onNextFrame(java.util.function.Consumer<ByteBuf> handler) {
        inbox.authenticating(handler);
    }

    void failAndClose(int code, String sqlState, String message) {
        replies.error(code, sqlState, message);
        close();
    }

    /** Refuses a packet that was never taken as a command: the ERR answers that packet's sequence id. */
    void failAndClose(int sequenceId, int code, String sqlState, String message) {
        inbox.replyTo(sequenceId);
        failAndClose(code, sqlState, message);
    }

    // ---- transaction splitting: a BEGIN held back until the first write ----

    /** Keeps the client's BEGIN and answers it: the client is in a transaction, the primary not yet. */
    void deferBegin(ByteBuf begin) {
        deferredBegin.hold(begin);
        serverStatus |= ServerStatus.IN_TRANS;
        previous.answeredLocally(false);
        replyOk();
        routing.onResponse(serverStatus);
    }

    boolean hasDeferredBegin() {
        return deferredBegin.isHeld();
    }

    /** The held BEGIN, to send before the transaction's first statement on the primary. */
    ByteBuf takeDeferredBegin() {
        return deferredBegin.take();
    }

    /** COMMIT or ROLLBACK of a split transaction that never reached the primary. */
    void endDeferredTransaction() {
        deferredBegin.release();
        serverStatus &= ~ServerStatus.IN_TRANS;
        previous.answeredLocally(false);
        replyOk();
        routing.onResponse(serverStatus);
        releaseIfAtBoundary();
    }

    /**
     * Sends {@code command} (a whole packet) to {@code node} ahead of the client's current
     * command; its answer is Sluice's own. Used for a held BEGIN.
     */
    void sendBefore(NodeRef node, ByteBuf command) {
        withBackend(node, command, b -> b.send(command, ResponseKind.RESULT, new DiscardingSink(this)));
    }

    /** Session state that routing keeps (transaction, pins, temp tables, history) starts over. */
    void resetRoutingState() {
        serverStatus = ServerStatus.AUTOCOMMIT;
        deferredBegin.release();
        routing.reset(ClientCharset.ofCollation(identity.collation()));
        previous.reset();
        handBack.reset();
    }

    /** See {@link FirstNode}. */
    Optional<NodeRef> firstNode() {
        return FirstNode.of(endpoint, routing, proxy);
    }

    /** Takes the next queued command, if any. */
    void resume() {
        inbox.drain();
    }

    // ---- lifecycle ----

    void onClientWritable() {
        forwarder.clientWritable();
    }

    void close() {
        if (!isClosed()) {
            releaseEverything();
            client.close();
        }
    }

    void onClientClosed() {
        if (!isClosed()) {
            releaseEverything();
        }
        endpoint.unregister(this);
        proxy.unregisterSession(connectionId);
        proxy.metrics().sessionClosed(endpoint.name());
        endpoint.sessionEnded();
    }

    private void releaseEverything() {
        boolean onlyTrackedState = carriesOnlyTrackedState();
        inbox.close();
        retries.release();
        deferredBegin.release();
        requestEnded();
        backends.end(onlyTrackedState);
    }

    /**
     * Whether the session's connections carry nothing but the state their tags describe, as far as
     * the session goes (each connection's own statements are judged by {@link StatementListener}):
     * no transaction, split or not, no lock cause, no command half done.
     */
    private boolean carriesOnlyTrackedState() {
        return !handBack.locked() && !routing.inTransaction() && routing.atTransactionBoundary()
                && !ServerStatus.has(serverStatus, ServerStatus.IN_TRANS) && !deferredBegin.isHeld()
                && handBack.nothingHeld() && inbox.nothingInTransit() && !inbox.commandRunning();
    }

    boolean isClosed() {
        return inbox.phase() == SessionPhase.CLOSED;
    }
}
