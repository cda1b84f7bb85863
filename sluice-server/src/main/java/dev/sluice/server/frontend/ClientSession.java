package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.*;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import java.util.ArrayDeque;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection in its command phase: takes the client's packets in order, decides
 * where each command runs, forwards it, and streams the answer back.
 *
 * <pre>
 *   client frames ──▶ queue ──▶ startCommand ──▶ Commands (route + send) ──▶ backend
 *                                   ▲                                          │
 *                                   └── onResponseComplete ◀── ClientForwarder ◀┘ bytes to client
 * </pre>
 *
 * <p>Commands are taken one at a time: the next starts when the previous one's response has
 * ended (clients that pipeline — MariaDB Connector/J does — simply wait in the queue). Only the
 * frames that continue a command (16 MB packets, LOCAL INFILE data) pass while a response is due.
 * Everything runs on the client channel's event loop.
 */
public final class ClientSession implements EndpointRuntime.SessionHandle {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);
    /** Beyond this many queued frames the client is not read until the queue drains. */
    private static final int MAX_QUEUED_FRAMES = 64;

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
    private final ArrayDeque<ByteBuf> frames = new ArrayDeque<>();
    private final Commands commands;
    private final RoutingSession routing;
    private final RouteExecutor executor;
    private final ConsistentReads consistency;
    private final ReadRetries retries = new ReadRetries();
    private final DeferredBegin deferredBegin = new DeferredBegin();
    private final BackendFailures failures = new BackendFailures(this, retries);
    private final SetShortcut setShortcut = new SetShortcut(this);
    private boolean awaiting;
    private BackendConnection continuationTarget;
    private BackendConnection uploadTarget;
    private int replySequence;
    private int serverStatus = ServerStatus.AUTOCOMMIT;
    private boolean readingPaused;
    private boolean uploadPaused;
    private boolean closed;

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
        this.executor = new RouteExecutor(this);
        this.consistency = new ConsistentReads(this);
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

    ConsistentReads consistency() {
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

    int replySequence() {
        return replySequence;
    }

    // ---- frames in ----

    /** A physical packet from the client (header included); the session owns it. */
    void onFrame(ByteBuf frame) {
        if (closed) {
            frame.release();
            return;
        }
        frames.addLast(frame);
        drain();
        if (frames.size() > MAX_QUEUED_FRAMES && !readingPaused) {
            readingPaused = true;
            updateAutoRead();
        }
    }

    private void drain() {
        while (!closed) {
            ByteBuf frame = frames.peekFirst();
            if (frame == null) {
                break;
            }
            if (continuationTarget != null) {
                frames.pollFirst();
                forwardContinuation(frame);
                continue;
            }
            if (uploadTarget != null) {
                frames.pollFirst();
                forwardUpload(frame);
                continue;
            }
            if (awaiting) {
                break;
            }
            frames.pollFirst();
            if (nextFrameHandler != null) {
                java.util.function.Consumer<ByteBuf> h = nextFrameHandler;
                nextFrameHandler = null;
                replySequence = (Packets.sequenceId(frame, frame.readerIndex()) + 1) & Packets.SEQUENCE_MASK;
                h.accept(frame);
                continue;
            }
            startCommand(frame);
        }
        if (readingPaused && frames.size() <= MAX_QUEUED_FRAMES / 2) {
            readingPaused = false;
            updateAutoRead();
        }
    }

    private void forwardContinuation(ByteBuf frame) {
        boolean last = payloadLength(frame) < Packets.MAX_PAYLOAD;
        BackendConnection target = continuationTarget;
        replySequence = (Packets.sequenceId(frame, frame.readerIndex()) + 1) & Packets.SEQUENCE_MASK;
        if (last) {
            continuationTarget = null;
        }
        target.write(frame, true);
        holdClientWhileBusy(target);
    }

    private void forwardUpload(ByteBuf frame) {
        boolean end = payloadLength(frame) == 0;
        BackendConnection target = uploadTarget;
        if (end) {
            uploadTarget = null;
        }
        target.write(frame, true);
        holdClientWhileBusy(target);
    }

    /**
     * Client-to-server backpressure, the mirror of the result path's: bytes the client uploads
     * (LOCAL INFILE data, the frames of a 16 MB+ packet) are flushed as they come, and while the
     * backend's socket is full the client is not read, so that nothing piles up in Sluice.
     */
    private void holdClientWhileBusy(BackendConnection target) {
        if (uploadPaused || target.isWritable(() -> {
            uploadPaused = false;
            updateAutoRead();
        })) {
            return;
        }
        uploadPaused = true;
        updateAutoRead();
    }

    private void updateAutoRead() {
        client.config().setAutoRead(!readingPaused && !uploadPaused);
    }

    private static int payloadLength(ByteBuf frame) {
        return Packets.payloadLength(frame, frame.readerIndex());
    }

    private void startCommand(ByteBuf frame) {
        int length = payloadLength(frame);
        replySequence = (Packets.sequenceId(frame, frame.readerIndex()) + 1) & Packets.SEQUENCE_MASK;
        if (length == 0) {
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
        awaiting = true;
        withBackend(node, frame, b -> sendNow(b, frame, kind, listener));
    }

    /**
     * Sends a whole client command to that very connection and streams the response to the
     * client: the packet names something of that connection only (a prepared statement's id).
     */
    void forwardOn(BackendConnection b, ByteBuf frame, ResponseKind kind, CommandListener listener) {
        awaiting = true;
        sendNow(b, frame, kind, listener);
    }

    /**
     * Keeps a copy of a read about to go to a replica (outside a transaction, or before the first
     * write of a split one): should the replica fail — or refuse the session's state — before any
     * byte of the answer reached the client, the read is routed again and the client sees no error
     * (SPEC §3, §4). Taken before the packet is adapted to the node, so a retry
     * can adapt it to another.
     */
    void keepForRetry(ByteBuf frame, dev.sluice.routing.sql.Statement statement, RouteDecision decision,
            ResponseKind kind, CommandListener own, Binding binding, int nodeId) {
        // Inside a transaction that is not split (a read-only endpoint's), the reads belong to the
        // transaction's snapshot on that one replica: elsewhere they would read another.
        if (routing.inTransaction() && decision.reason() != RouteReason.TRANSACTION_SPLIT) {
            retries.release();
        } else {
            retries.keep(frame, statement, kind, own, binding, nodeId);
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
            if (closed) {
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
            continuationTarget = b;
        } else {
            b.send(frame, kind, leg);
        }
        drain();
    }

    private CommandListener current = CommandListener.NONE;
    /** Node running the client's current command, for the active-request count; -1 when none. */
    private int requestNode = -1;

    private void requestEnded() {
        if (requestNode >= 0) {
            endpoint.requestEnded(requestNode);
            requestNode = -1;
        }
    }

    /**
     * Transaction pooling: whether this session must keep its backend connections until it
     * disconnects (SPEC §7: PREPARE, temporary tables, user variables, LOCK TABLES, GET_LOCK,
     * multi-statements, stored procedures, packets over 16 MB — and binary-protocol statements,
     * whose ids live on one connection).
     */
    boolean lockedToBackends() {
        return lockedByProtocol || routing.lockedToBackend() || routing.pinnedToPrimary();
    }

    /** A binary prepared statement, LOCAL INFILE or a 16 MB+ packet ties the session to its connections. */
    void lockToBackends() {
        lockedByProtocol = true;
    }

    private boolean lockedByProtocol;

    private final PreviousStatement previous = new PreviousStatement();

    /** What LAST_INSERT_ID() and ROW_COUNT() answer for this client (transaction pool). */
    PreviousStatement previous() {
        return previous;
    }

    boolean transactionPool() {
        return endpoint.config().policy().connectionPool() == dev.sluice.routing.policy.ConnectionPoolMode.TRANSACTION;
    }

    /**
     * Statements to complete before the connections may go back to the pool: 2 keeps them through
     * the current statement and the next (a FOUND_ROWS() after SQL_CALC_FOUND_ROWS runs where the
     * count is).
     */
    private int holdStatements;

    /** Keeps the session's connections through this statement and the next one. */
    void holdThroughNextStatement() {
        holdStatements = 2;
    }

    /** At a transaction boundary with a transaction pool, the session's connections go back to the pool. */
    private void releaseIfAtBoundary() {
        // The server's transaction, not the routing view's: under autocommit=0 routing counts every
        // statement as inside a transaction, yet after COMMIT nothing is open on the connection and
        // the next statement may start the next transaction on any connection (SPEC §7: back to the
        // pool "at the end of each transaction").
        if (!routing.transactionOpen() && !ServerStatus.has(serverStatus, ServerStatus.IN_TRANS) && !lockedToBackends()
                && nothingHalfDone() && frames.isEmpty()) {
            backends.releaseToPool();
        }
    }

    // ---- responses ----

    void onResponseComplete(BackendConnection backend, ResponseTracker tracker) {
        if (tracker.lastStatus() >= 0) {
            serverStatus = tracker.lastStatus();
        }
        if (tracker.isLocalInfileRequest()) {
            lockToBackends();
            uploadTarget = backend;
            backend.expect(ResponseKind.RESULT, forwarder.currentLeg());
            drain();
            return;
        }
        CommandListener done = current;
        current = CommandListener.NONE;
        awaiting = false;
        requestEnded();
        retries.release();
        if (holdStatements > 0) {
            holdStatements--;
        }
        if (holdStatements == 0 && tracker.lastWarnings() > 0 && transactionPool()) {
            // A SHOW WARNINGS that follows must find them: the connection that has them stays
            // with the session through the next statement, as after SQL_CALC_FOUND_ROWS.
            holdStatements = 1;
        }
        done.onComplete(backend, tracker);
        leaveRetiredNodes();
        releaseIfAtBoundary();
        drain();
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
        return uploadTarget == backend || continuationTarget == backend;
    }

    private final ProxyRuntime.KillTarget killTarget = new SessionKillTarget(this);

    /** Whether a command of the client is running on a backend (its answer not yet complete). */
    boolean isAwaitingResponse() {
        return awaiting;
    }

    @Override
    public void leaveRetiredNodesSoon() {
        client.eventLoop().execute(() -> {
            if (!closed && !awaiting && frames.isEmpty()) {
                leaveRetiredNodes();
            }
        });
    }

    /**
     * The monitor found a replica unreachable: the session stops waiting on it. A read sent there
     * whose answer has not started is routed again (its connection is closed, which fails it into
     * {@link #onBackendFailure}, and the read is retried on another node — SPEC §4); a connection
     * still being opened there is given up, and what waited for it goes elsewhere; an idle
     * connection is dropped, so nothing is ever sent to the hung node again. An answer already
     * streaming to the client is cut only once it stops coming (see {@link #cutIfStalled}). The
     * primary is not treated so: a write sent there may have run, and only its own connection can
     * tell.
     */
    @Override
    public void leaveUnreachableReplica(int nodeId) {
        client.eventLoop().execute(() -> leaveIfUnreachable(nodeId));
    }

    private boolean unreachableReplica(int nodeId) {
        Optional<dev.sluice.routing.topology.Node> node = endpoint.view().topology().node(nodeId);
        return node.isPresent() && !node.get().isPrimary() && !node.get().state().reachable();
    }

    private void leaveIfUnreachable(int nodeId) {
        if (closed || !unreachableReplica(nodeId)) {
            return;
        }
        backends.abandonOpening(nodeId, "replica '" + endpoint.view().topology().node(nodeId).get().name()
                + "' stopped answering the monitor");
        BackendConnection b = backends.ready(nodeId);
        if (b == null) {
            return;
        }
        if (awaiting && forwarder.source() == b && forwarder.bytesForwarded() > 0) {
            cutIfStalled(b, forwarder.bytesForwarded());
            return;
        }
        LOG.debug("session {}: replica {} is unreachable; leaving it", connectionId, b.nodeName());
        backends.remove(b);
    }

    /**
     * An answer streaming from a replica the monitor found unreachable: its bytes show the node was
     * alive a moment ago, and cutting it costs the client its connection, so it is left to finish
     * while it makes progress. If nothing more comes for the monitor's query timeout — the node
     * hangs in the middle of it — it is cut: a lost connection is better than one that waits for
     * ever. A client too slow to take more is not the node's fault, and is waited for.
     */
    private void cutIfStalled(BackendConnection b, long forwardedBefore) {
        client.eventLoop().schedule(() -> {
            if (closed || !awaiting || forwarder.source() != b || backends.ready(b.nodeId()) != b
                    || !unreachableReplica(b.nodeId())) {
                return;
            }
            if (client.isWritable() && forwarder.bytesForwarded() == forwardedBefore) {
                LOG.info("session {}: replica {} stopped in the middle of an answer; ending the client connection",
                        connectionId, b.nodeName());
                backends.remove(b);
                return;
            }
            cutIfStalled(b, forwarder.bytesForwarded());
        }, proxy.config().monitor().queryTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** The login is complete: the session counts as live. */
    void started() {
        endpoint.register(this);
        proxy.registerSession(connectionId, killTarget);
        proxy.metrics().sessionOpened(endpoint.name());
        releaseIfAtBoundary();
    }

    /** Nodes routing has left whose connection was still busy then: closed once it is idle. */
    private final java.util.BitSet retiring = new java.util.BitSet();

    /**
     * A session command (or Sluice's own follow-up) was answered on a backend the client was not
     * waiting for: that backend may be free to leave, or to go back to the transaction pool, now.
     */
    void sessionCommandAnswered() {
        if (!retiring.isEmpty() || transactionPool()) {
            // Later, once the backend has counted this answer as no longer pending: a connection
            // still answering one of these was kept from the pool at the boundary (releaseToPool).
            client.eventLoop().execute(() -> {
                if (!closed && !awaiting && frames.isEmpty()) {
                    leaveRetiredNodes();
                    releaseIfAtBoundary();
                }
            });
        }
    }

    /**
     * At a transaction boundary, closes connections to nodes removed or being drained. Routing
     * leaves such a node once and for all, but its connection may still be answering a session
     * command sent to every backend (the client already has the answer of another); that one is
     * remembered and closed when its answer is in (see {@link Commands.SessionCommandSink}), or the
     * node would keep this session — and a drain would never reach 0 sessions.
     */
    private void leaveRetiredNodes() {
        for (int id : routing.leaveRetiredNodes(endpoint.view().topology())) {
            retiring.set(id);
        }
        for (int id = retiring.nextSetBit(0); id >= 0; id = retiring.nextSetBit(id + 1)) {
            BackendConnection b = backends.ready(id);
            if (b == null) {
                retiring.clear(id);
            } else if (b.pendingResponses() == 0) {
                backends.remove(b);
                retiring.clear(id);
            }
        }
    }

    private void onBackendLost(BackendConnection backend) {
        failures.betweenCommands(backend);
    }

    void dropNode(BackendConnection backend) {
        failures.failedSessionCommand(backend);
    }

    // ---- replies Sluice writes itself ----

    void replyError(int code, String sqlState, String message) {
        proxy.metrics().errorReturned(endpoint.name(), code);
        client.writeAndFlush(Replies.error(client.alloc(), replySequence, identity.capabilities(), code, sqlState,
                message), client.voidPromise());
    }

    /** The current command was answered by Sluice with an OK carrying {@code status}. */
    void answeredLocally(int status) {
        serverStatus = status;
        previous.answeredLocally(false);
    }

    void replyOk() {
        client.writeAndFlush(Replies.ok(client.alloc(), replySequence, identity.capabilities(), serverStatus),
                client.voidPromise());
    }

    /** Ends a command that Sluice answered itself. */
    void commandDone() {
        awaiting = false;
    }

    /** The current command waits for something (a backend, an internal PREPARE) before it is sent. */
    void holdCommand() {
        awaiting = true;
    }

    /** The current command could not be run: the client gets this error and the session goes on. */
    void commandFailed(int code, String sqlState, String message) {
        awaiting = false;
        retries.release();
        continuationTarget = null;
        replyError(code, sqlState, message);
        drain();
    }

    /** Sends a command that gets no response (COM_STMT_SEND_LONG_DATA) to that connection and moves on. */
    void sendWithoutResponse(BackendConnection b, ByteBuf frame) {
        boolean more = payloadLength(frame) == Packets.MAX_PAYLOAD;
        b.write(frame, !more);
        if (more) {
            continuationTarget = b;
        }
        awaiting = false;
        drain();
    }

    /** The next client frame is an answer to an authentication exchange, not a command. */
    void onNextFrame(java.util.function.Consumer<ByteBuf> handler) {
        this.nextFrameHandler = handler;
    }

    private java.util.function.Consumer<ByteBuf> nextFrameHandler;

    void failAndClose(int code, String sqlState, String message) {
        replyError(code, sqlState, message);
        close();
    }

    /** Refuses a packet that was never taken as a command: the ERR answers that packet's sequence id. */
    void failAndClose(int sequenceId, int code, String sqlState, String message) {
        replySequence = sequenceId & Packets.SEQUENCE_MASK;
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
        holdStatements = 0;
    }

    /** See {@link FirstNode}. */
    Optional<NodeRef> firstNode() {
        return FirstNode.of(endpoint, routing, proxy);
    }

    /** Takes the next queued command, if any. */
    void resume() {
        drain();
    }

    // ---- lifecycle ----

    void onClientWritable() {
        forwarder.clientWritable();
    }

    void close() {
        if (!closed) {
            releaseEverything();
            client.close();
        }
    }

    void onClientClosed() {
        if (!closed) {
            releaseEverything();
        }
        endpoint.unregister(this);
        proxy.unregisterSession(connectionId);
        proxy.metrics().sessionClosed(endpoint.name());
        endpoint.sessionEnded();
    }

    private void releaseEverything() {
        boolean onlyTrackedState = carriesOnlyTrackedState();
        closed = true;
        ByteBuf f;
        while ((f = frames.pollFirst()) != null) {
            f.release();
        }
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
        return !lockedToBackends() && !routing.inTransaction() && routing.atTransactionBoundary()
                && !ServerStatus.has(serverStatus, ServerStatus.IN_TRANS) && !deferredBegin.isHeld()
                && nothingHalfDone() && !awaiting;
    }

    /** No statement holding its connection for the next one, no upload or 16 MB packet under way. */
    private boolean nothingHalfDone() {
        return holdStatements == 0 && uploadTarget == null && continuationTarget == null;
    }

    boolean isClosed() {
        return closed;
    }
}
