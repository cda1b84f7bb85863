package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.routing.policy.ConnectionPoolMode;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.config.TransactionReplaySettings;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection in its command phase: wires the session's parts together, takes the
 * client's packets in order and starts each command, and ends the session.
 *
 * <pre>
 *   client frames ──▶ ClientInbox ──▶ startCommand ──▶ Commands (route) ──▶ RouteExecutor ──▶ backend
 *                        ▲ (phase)                                                           │
 *                        └── CommandRunner (answer complete) ◀── ClientForwarder (bytes) ◀───┘
 * </pre>
 *
 * <p>Commands are taken one at a time, as the session's {@link SessionPhase} allows (see
 * {@link ClientInbox}); {@link CommandRunner} runs the one in flight. No part holds the session:
 * each is given the narrow pieces it needs. From outside, the client's socket reaches it only as
 * {@link ClientEvents}, the login through {@link FirstBackend}, the endpoint and the proxy through
 * {@link EndpointHandle}. Everything runs on the client channel's event loop.
 */
public final class ClientSession implements ClientEvents {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);

    private final Channel client;
    private final ProxyRuntime proxy;
    private final EndpointRuntime endpoint;
    private final SessionLogin login;
    private final RoutingSession routing;
    private final ClientInbox inbox;
    private final ClientReplies replies;
    private final ClientStatus status = new ClientStatus();
    private final ReadRetries retries = new ReadRetries();
    private final SessionBackends backends;
    private final ClientForwarder forwarder;
    private final TransactionPoolHandBack handBack;
    private final NodeDepartures departures;
    private final BackendFailures failures;
    private final CommandRunner runner;
    private final PreviousStatement previous = new PreviousStatement();
    private final PreparedStatements statements = new PreparedStatements();
    /** What each statement cost (BEHAVIOUR §12): started with each command, ended by the runner. */
    private final StatementCosts costs;
    private final LocalAnswers answers;
    private final DeferredBegin deferredBegin;
    private final Commands commands;
    private final ProxyRuntime.KillTarget killTarget;
    private final SwitchoverHold switchover;
    private final SessionShutdown shutdown;
    /** What the endpoint and the proxy may ask of this session, from other threads. */
    private final EndpointHandle handle;
    /** Null on an endpoint without {@code transaction-replay}: nothing is recorded there. */
    private final TransactionRecording recording;

    ClientSession(Channel client, ProxyRuntime proxy, EndpointRuntime endpoint, long connectionId, byte[] scramble,
            ClientIdentity identity, Optional<String> database) {
        this.client = client;
        this.proxy = proxy;
        this.endpoint = endpoint;
        this.login = new SessionLogin(connectionId, scramble, identity, database);
        EventLoop loop = client.eventLoop();
        this.routing = RoutingSession.open(endpoint.view(), ClientCharset.ofCollation(identity.collation()));
        this.inbox = new ClientInbox(client, this::startCommand);
        this.replies = new ClientReplies(client, inbox, login::capabilities, proxy.metrics(), endpoint.name());
        SessionBackendState backendState = new SessionBackendState(login, routing, endpoint::view, client.alloc());
        this.backends = new SessionBackends(loop, proxy.connector(), endpoint, proxy.metrics(), this::onBackendLost,
                backendState, proxy.globals());
        this.forwarder = new ClientForwarder(client, login::capabilities, retries::release);
        this.handBack = new TransactionPoolHandBack(routing, backends, previous, transactionPool());
        this.departures = new NodeDepartures(connectionId, client, endpoint::view, routing, backends, forwarder,
                inbox::commandRunning, proxy.config().monitor().queryTimeout());
        this.failures = new BackendFailures(connectionId, retries, backends, routing, status, endpoint::view, proxy);
        this.costs = new StatementCosts(proxy.digests().collecting() ? proxy.digests().forLoop(loop) : null,
                proxy.metrics(), endpoint, login, routing, statements);
        this.recording = recording(endpoint.config().replay(), backendState);
        this.runner = new CommandRunner(loop, inbox, replies, forwarder, backends, endpoint, status, retries,
                handBack, departures, failures, costs, this::transactionPool, this::close, recording);
        this.answers = new LocalAnswers(replies, status, previous, routing);
        this.deferredBegin = new DeferredBegin(answers, status, routing, runner::handBackAtBoundary);
        this.killTarget = new SessionKillTarget(login, loop, this::close, inbox::commandRunning, forwarder);
        this.switchover = new SwitchoverHold(connectionId, proxy.primaryHold(), runner, routing, deferredBegin,
                backends, loop, failures.lostTransaction());
        this.commands = commands(loop, client.alloc(), backendState);
        this.shutdown = new SessionShutdown(this::betweenTransactions, this::close);
        this.handle = new EndpointHandle(connectionId, loop, inbox, departures, switchover, failures, shutdown);
    }

    /** The handlers of the client's commands, each given what it may touch. */
    private Commands commands(EventLoop loop, ByteBufAllocator alloc, SessionBackendState backendState) {
        SetShortcut setShortcut = new SetShortcut(endpoint, routing, backends, deferredBegin, answers, replies,
                proxy.metrics());
        RouteExecutor executor = new RouteExecutor(login.connectionId(), runner, runner, routing, endpoint, proxy,
                backends, retries, deferredBegin, setShortcut, previous, answers,
                new StatementListener(login.connectionId(), routing, previous, login.capabilities()), proxy.metrics(), alloc, loop,
                () -> proxy.primaryPositions().next(), switchover);
        OwnConnectionId ownId = new OwnConnectionId(login.connectionId(), routing::clientCharset, alloc);
        KillCommands kills = new KillCommands(runner, answers, login, routing, proxy, proxy::session,
                new KillPermission(runner, () -> proxy.primary().or(this::firstNode), loop), loop, alloc);
        PreparedCommands prepared = new PreparedCommands(runner, runner, statements,
                new PreparedOnConnection(runner, runner, backends), executor, routing, endpoint, proxy,
                this::firstNode, backends, retries, handBack, ownId, answers, proxy.metrics());
        SessionRestart restart = new SessionRestart(login, routing, status, deferredBegin, previous, handBack,
                statements, backends);
        SessionCommands sessionCommands = new SessionCommands(runner, runner, backends, routing, backendState,
                restart, () -> Commands.primaryOf(firstNode(), proxy));
        ChangeUser changeUser = new ChangeUser(runner, answers, replies, login, restart, proxy.authenticator(),
                () -> proxy.clientSecurity().logins(), proxy.connector(), loop,
                () -> client.pipeline().get(SslHandler.class) != null, this::firstNode, endpoint.name());
        Queries queries = new Queries(routing, endpoint, executor, kills, ownId, previous, handBack, answers,
                proxy.authenticator().accounts());
        TransactionReplay replay = recording == null ? null : new TransactionReplay(login.connectionId(), recording,
                statements, backends, proxy, proxy.primaryHold(), loop, alloc, proxy.metrics(), runner::sessionClosed);
        return new Commands(runner, answers, backends, proxy, () -> Commands.primaryOf(firstNode(), proxy), queries,
                prepared, sessionCommands, changeUser, kills, failures.lostTransaction(), replay);
    }

    /** The recording of open transactions, for an endpoint that replays them (BEHAVIOUR §10). */
    private TransactionRecording recording(TransactionReplaySettings replay, SessionBackendState backendState) {
        if (!replay.enabled()) {
            return null;
        }
        return new TransactionRecording(replay.maxSize(),
                id -> endpoint.view().topology().primary().map(n -> n.id() == id).orElse(false),
                backendState::stateTag, statements);
    }

    private boolean transactionPool() {
        return endpoint.config().policy().connectionPool() == ConnectionPoolMode.TRANSACTION;
    }

    // ---- frames in ----

    @Override
    public void frame(ByteBuf frame) {
        inbox.add(frame);
    }

    private void startCommand(ByteBuf packet) {
        if (Packets.payloadLength(packet, packet.readerIndex()) == 0) {
            packet.release();
            runner.failAndClose(ErrorCodes.ER_NET_PACKETS_OUT_OF_ORDER, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "empty command packet: the client and Sluice disagree about the protocol state");
            return;
        }
        int command = packet.getUnsignedByte(packet.readerIndex() + Packets.HEADER_SIZE);
        endpoint.recordCommand();
        retries.newCommand();
        CommandFrame frame = new CommandFrame(packet);
        try {
            costs.commandStarts(command, packet);
            commands.dispatch(command, frame);
        } catch (RuntimeException e) {
            // A bug on some input must cost this session only. Unhandled, the exception would surface
            // in whichever pipeline ran the dispatch (often a backend's, when a queued command starts
            // after a response) and leave this session waiting forever. The packet is released
            // unless a path took it: that path answers for it now.
            LOG.warn("session {}: command {} failed inside Sluice; closing the session", login.connectionId(),
                    dev.sluice.protocol.Command.name(command), e);
            frame.releaseUntaken();
            runner.failAndClose(ErrorCodes.ER_UNKNOWN_ERROR, "HY000", "Sluice could not process this command: " + e);
        }
    }

    @Override
    public void refuse(int sequenceId, int code, String sqlState, String message) {
        inbox.replyTo(sequenceId);
        runner.failAndClose(code, sqlState, message);
    }

    // ---- the login, which hands the client over to this session ----

    /** The login's last step, given what it may touch of this session. */
    FirstBackend firstBackend() {
        return new FirstBackend(client, routing, endpoint, proxy, proxy.primaryHold()::holding, backends,
                this::started);
    }

    private Optional<NodeRef> firstNode() {
        return FirstNode.of(endpoint, routing, proxy);
    }

    /** The login is complete: the session counts as live. */
    void started() {
        endpoint.register(handle);
        proxy.registerSession(login.connectionId(), killTarget);
        proxy.metrics().sessionOpened(endpoint.name());
        runner.handBackAtBoundary();
    }

    /**
     * Idle between two transactions: nothing running or queued, no transaction open on a backend
     * (autocommit=0 alone opens none) and no BEGIN held back by transaction splitting.
     */
    private boolean betweenTransactions() {
        return !isClosed() && inbox.phase() == SessionPhase.IDLE && inbox.isEmpty() && !routing.transactionOpen()
                && !status.inTransaction() && !deferredBegin.isHeld();
    }

    private void onBackendLost(BackendConnection backend) {
        failures.betweenCommands(runner, backend);
    }

    // ---- lifecycle ----

    @Override
    public boolean backendAnswering() {
        return backends.all().stream().anyMatch(b -> b.pendingResponses() > 0);
    }

    @Override
    public void clientWritable() {
        forwarder.clientWritable();
    }

    @Override
    public void close() {
        if (!isClosed()) {
            releaseEverything();
            client.close();
        }
    }

    @Override
    public void clientClosed() {
        if (!isClosed()) {
            releaseEverything();
        }
        endpoint.unregister(handle);
        proxy.unregisterSession(login.connectionId());
        proxy.metrics().sessionClosed(endpoint.name());
        endpoint.sessionEnded();
        shutdown.sessionEnded();
    }

    private void releaseEverything() {
        boolean onlyTrackedState = carriesOnlyTrackedState();
        inbox.close();
        retries.release();
        deferredBegin.release();
        runner.requestEnded();
        backends.end(onlyTrackedState);
    }

    /**
     * Whether the session's connections carry nothing but the state their tags describe, as far as
     * the session goes (each connection's own statements are judged by {@link StatementListener}):
     * no transaction, split or not, no lock cause, no command half done.
     */
    private boolean carriesOnlyTrackedState() {
        return !handBack.locked() && !routing.inTransaction() && routing.atTransactionBoundary()
                && !status.inTransaction() && !deferredBegin.isHeld()
                && handBack.nothingHeld() && inbox.nothingInTransit() && !inbox.commandRunning();
    }

    @Override
    public boolean isClosed() {
        return inbox.phase() == SessionPhase.CLOSED;
    }
}
