package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.ConsistencyRequirement;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteError;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.policy.ConnectionPoolMode;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.AutocommitChange;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.routing.sql.TransactionControl;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.SessionTracking;
import dev.sluice.server.consistency.ConsistentReads;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Carries out a routing decision for the client's current command: sends it to the primary, to
 * a replica, to every backend, or answers it without a backend.
 */
final class RouteExecutor {
    private static final String NO_PRIMARY_STATE = "HY000";

    private final long connectionId;
    private final CurrentCommand command;
    private final BackgroundAnswers background;
    private final RoutingSession routing;
    private final EndpointRuntime endpoint;
    private final NodeDirectory nodes;
    private final SessionBackends backends;
    private final ReadRerouting rerouting;
    private final DeferredBegin deferredBegin;
    private final SetShortcut setShortcut;
    private final PreviousStatement previous;
    private final LocalAnswers answers;
    private final StatementListener listener;
    private final SluiceMetrics metrics;
    private final ByteBufAllocator alloc;
    private final ConsistentReads<RoutedCommand> consistency;
    private final LastGtidToken lastGtid;
    private final SwitchoverHold switchover;

    /**
     * @param listener the session's statement listener, which every statement's answer passes
     * @param loop the session's event loop, where consistency waits end
     * @param primaryPosition asks the primary for its GTID position (global consistency)
     * @param switchover parks commands for the primary while a switchover moves it
     */
    RouteExecutor(long connectionId, CurrentCommand command, BackgroundAnswers background, RoutingSession routing,
            EndpointRuntime endpoint, NodeDirectory nodes, SessionBackends backends, ReadRetries retries,
            DeferredBegin deferredBegin, SetShortcut setShortcut, PreviousStatement previous, LocalAnswers answers,
            StatementListener listener, SluiceMetrics metrics, ByteBufAllocator alloc, EventLoop loop,
            Supplier<CompletableFuture<GtidPosition>> primaryPosition, SwitchoverHold switchover) {
        this.connectionId = connectionId;
        this.switchover = switchover;
        this.command = command;
        this.background = background;
        this.routing = routing;
        this.endpoint = endpoint;
        this.nodes = nodes;
        this.backends = backends;
        this.rerouting = new ReadRerouting(connectionId, routing, endpoint, retries, this::run);
        this.deferredBegin = deferredBegin;
        this.setShortcut = setShortcut;
        this.previous = previous;
        this.answers = answers;
        this.listener = listener;
        this.metrics = metrics;
        this.alloc = alloc;
        this.consistency = new ConsistentReads<>(new ConsistentReadSession(loop, command, backends, this, rerouting,
                routing, endpoint), metrics, endpoint.name(), primaryPosition);
        this.lastGtid = new LastGtidToken(loop, command, routing, answers, primaryPosition);
    }

    /** {@code sluice_last_gtid()}, asked in the text protocol or executed as a prepared statement. */
    void answerLastGtid(Statement statement, boolean binary) {
        lastGtid.answer(statement, binary);
    }

    /** Runs a command as its decision says. */
    void run(RoutedCommand c) {
        if (switchover.parks(c, this::run)) {
            // BEHAVIOUR §10: a switchover is moving the primary; the command runs when it is done.
            return;
        }
        RouteDecision decision = c.decision();
        if (decision instanceof RouteDecision.ToPrimary) {
            toPrimary(c);
        } else if (decision instanceof RouteDecision.ToReplica r) {
            toReplica(c, r);
        } else if (decision instanceof RouteDecision.NeedPrimaryPosition n) {
            consistency.atPrimaryPosition(c, n.onTimeout());
        } else if (c.binary() && !(decision instanceof RouteDecision.Reject)) {
            // Session commands and Sluice's own answers do not exist in the binary protocol: the
            // primary runs a prepared one.
            toPrimary(c.routedAs(RouteDecision.primary(RouteReason.PREPARED_SESSION_COMMAND)));
        } else if (decision instanceof RouteDecision.ToAllBackends) {
            everywhere(c);
        } else if (decision instanceof RouteDecision.Reject j) {
            routed(null, "rejected", decision);
            c.release();
            RouteError e = j.error();
            answers.error(e.errorCode(), e.sqlState(), e.message());
        } else if (decision instanceof RouteDecision.AnswerLocally) {
            routed(null, "local", decision);
            c.release();
            answerLastGtid(c.statement(), false);
        } else {
            throw new IllegalStateException("unknown decision " + decision);
        }
    }

    void toPrimary(RoutedCommand c) {
        Optional<Node> primary = endpoint.view().topology().primary();
        if (primary.isEmpty()) {
            c.release();
            answers.error(ErrorCodes.ER_UNKNOWN_ERROR, NO_PRIMARY_STATE, "no primary is known for endpoint '"
                    + endpoint.name() + "': writes cannot run now; retry when the cluster has a primary");
            return;
        }
        Node p = primary.get();
        if (c.decision().reason() == RouteReason.WRITE && p.state().reachable() && p.state().readOnly()) {
            c.release();
            answers.error(ErrorCodes.ER_OPTION_PREVENTS_STATEMENT, NO_PRIMARY_STATE, "the primary '" + p.name()
                    + "' is read-only right now (a switchover may be in progress): the write was not run; retry");
            return;
        }
        TransactionControl control = c.statement().transactionControl();
        if (control == TransactionControl.BEGIN && !c.binary()
                && endpoint.config().policy().transactionSplitting()) {
            routing.onStatementSent(c.statement(), c.decision());
            if (routing.transactionSplittable()) {
                // BEHAVIOUR §6: the transaction opens on the primary only when its first write comes.
                routed(null, "local", c.decision());
                deferredBegin.defer(c.frame());
                return;
            }
            sendToPrimary(c, p);
            return;
        }
        if (deferredBegin.isHeld() && (control == TransactionControl.COMMIT
                || control == TransactionControl.ROLLBACK)) {
            // A split transaction that never wrote: it never existed on the primary.
            routing.onStatementSent(c.statement(), c.decision());
            routed(null, "local", c.decision());
            c.release();
            deferredBegin.endUnwritten();
            return;
        }
        routing.onStatementSent(c.statement(), c.decision());
        sendToPrimary(c, p);
    }

    private void sendToPrimary(RoutedCommand c, Node p) {
        Statement statement = c.statement();
        NodeRef node = nodes.ref(p);
        routed(node.name(), "primary", c.decision());
        ByteBuf begin = deferredBegin.take();
        if (begin != null) {
            command.sendBeforeInTransaction(node, begin);
        }
        if (statement.has(StatementProperty.LAST_INSERT_ID) && transactionPool()) {
            // The connection may have run other clients' INSERTs since this client's last one:
            // it gets this client's value first (BEHAVIOUR §7).
            command.sendBeforeInTransaction(node, InternalQuery.queryPacket(alloc.buffer(),
                    "SET @@session.last_insert_id = " + previous.lastInsertId()));
        }
        if (c.decision().reason() == RouteReason.FALLBACK_NO_REPLICA) {
            rerouting.keep(c, node.id());
        }
        send(givingUserVariablesToOthers(c), node);
    }

    /**
     * A {@code SET @v = …} whose values the other backends get once it answered
     * ({@link UserVariablePropagation}), from whichever node ran it.
     */
    private RoutedCommand givingUserVariablesToOthers(RoutedCommand c) {
        List<String> assigned = c.statement().userVariablesAssigned();
        if (assigned.isEmpty()) {
            return c;
        }
        if (c.binary()) {
            // Through the binary protocol its values are not read back: they stay where it ran.
            routing.userVariablesDiverged();
            return c;
        }
        return c.listenedBy(new UserVariablePropagation(command, background, routing, backends, assigned, c.own()));
    }

    private void toReplica(RoutedCommand c, RouteDecision.ToReplica decision) {
        Optional<NodeRef> node = nodes.node(decision.nodeId());
        if (node.isEmpty()) {
            toPrimary(c.routedAs(RouteDecision.primary(RouteReason.FALLBACK_NO_REPLICA)));
            return;
        }
        if (decision.consistency() instanceof ConsistencyRequirement.WaitFor wait) {
            consistency.waitThenRun(c, wait, node.get());
            return;
        }
        sendToReplica(c, node.get());
    }

    /** Sends a read to a replica; a failure before any byte reached the client is retried elsewhere. */
    void sendToReplica(RoutedCommand c, NodeRef node) {
        routing.onStatementSent(c.statement(), c.decision());
        routed(node.name(), "replica", c.decision());
        RoutedCommand giving = givingUserVariablesToOthers(c);
        rerouting.keep(giving, node.id());
        send(giving, node);
    }

    /** Sends the command to {@code node}, adapted to it first if it is a prepared one. */
    private void send(RoutedCommand c, NodeRef node) {
        CommandListener own = c.statement().has(StatementProperty.SETS_GLOBAL) ? hearingGlobalsChange(c.own())
                : c.own();
        CommandListener listening = listener.with(own, leavesNoTrace(c));
        if (!c.binary()) {
            command.forward(node, c.frame(), c.kind(), listening);
        } else {
            command.hold();
            c.binding().bind(node, c.frame(), (b, bound) -> command.forwardOn(b, bound, c.kind(), listening));
        }
    }

    /**
     * A {@code SET GLOBAL}'s listener: once it succeeded, pooled connections that took their
     * session values before it are reset before they serve a session (BEHAVIOUR §7).
     */
    private CommandListener hearingGlobalsChange(CommandListener own) {
        return ForwardingListener.completingFirst(own, tracker -> {
            if (!tracker.endedWithError()) {
                backends.globalsChanged();
            }
        });
    }

    /** Only a pooled connection's next user cares; the test reads the statement's start. */
    private boolean leavesNoTrace(RoutedCommand c) {
        return pooled() && Traceless.of(c.statement(), c.frame(), c.binding());
    }

    /** A session command: the client gets the primary's answer; every other open backend runs it too. */
    private void everywhere(RoutedCommand c) {
        Statement statement = c.statement();
        RouteDecision decision = c.decision();
        ByteBuf frame = c.frame();
        ResponseKind kind = c.kind();
        if (setShortcut.answer(statement, decision, frame)) {
            return;
        }
        Optional<NodeRef> answering = answeringNode();
        if (answering.isEmpty()) {
            frame.release();
            answers.error(ErrorCodes.ER_UNKNOWN_ERROR, NO_PRIMARY_STATE, "no backend available for endpoint '"
                    + endpoint.name() + "'");
            return;
        }
        int answeringId = answering.get().id();
        boolean autocommitOff = statement.autocommitChange() == AutocommitChange.OFF;
        boolean retrack = SessionTracking.mayChangeTracking(frame);
        SessionCommandAgreement agreement = SessionCommandAgreement.sendToOthers(background, backends, answeringId,
                frame, kind, other -> {
                    if (autocommitOff && isReplica(other.nodeId())) {
                        keepAutocommit(other);
                    }
                    if (retrack) {
                        retrack(other);
                    }
                });
        routing.onStatementSent(statement, decision);
        routed(answering.get().name(), "all", decision);
        boolean traceless = leavesNoTrace(c);
        command.forward(answering.get(), frame, kind, listener.with(agreement.answering(
                setShortcut.learning(statement, retrack ? retrackAfterAnswer : CommandListener.NONE)),
                traceless));
    }

    /**
     * The backend whose answer to a session command the client gets: the primary; on a read-only
     * endpoint, which never uses the primary (BEHAVIOUR §1), the session's replica.
     */
    private Optional<NodeRef> answeringNode() {
        if (endpoint.config().isReadOnly()) {
            return FirstNode.of(endpoint, routing, nodes);
        }
        Optional<Node> primary = endpoint.view().topology().primary();
        Optional<NodeRef> answering = primary.map(nodes::ref);
        if (answering.isEmpty() || (!primary.get().state().reachable()
                && backends.ready(primary.get().id()) == null && !backends.isEmpty())) {
            // No primary to answer: the first open backend does, so a session on replicas keeps working.
            List<BackendConnection> open = new ArrayList<>(backends.all());
            if (!open.isEmpty()) {
                answering = nodes.node(open.get(0).nodeId());
            }
        }
        return answering;
    }

    /**
     * After a client's own {@code SET session_track_system_variables}: GTID tracking on again,
     * queued before the client's next command, which session consistency depends on.
     */
    private final CommandListener retrackAfterAnswer = new CommandListener() {
        @Override
        public void onComplete(BackendConnection backend, dev.sluice.protocol.stream.ResponseTracker tracker) {
            retrack(backend);
        }
    };

    private void retrack(BackendConnection b) {
        SessionTracking.enable(b, new RetrackSink(background));
    }

    private void routed(String node, String target, RouteDecision decision) {
        metrics.statementRouted(endpoint.name(), node, target,
                decision.reason().metricName());
    }

    private boolean isReplica(int nodeId) {
        return endpoint.view().topology().node(nodeId).map(n -> !n.isPrimary()).orElse(false);
    }

    /** A replica stays in autocommit whatever the client sets: it never sees the client's COMMIT. */
    private void keepAutocommit(BackendConnection replica) {
        replica.send(InternalQuery.queryPacket(replica.channel().alloc().buffer(), SessionState.AUTOCOMMIT_ON),
                ResponseKind.RESULT, new SessionCommandSink(background));
    }

    /** Where a read that replicas failed is sent again: see {@link ReadRerouting#forRetry}. */
    RouteDecision forRetry(RouteDecision routed, boolean lastTry) {
        return rerouting.forRetry(routed, lastTry);
    }

    /** The endpoint pools backend connections (session or transaction mode). */
    private boolean pooled() {
        return endpoint.config().policy().connectionPool() != ConnectionPoolMode.NONE;
    }

    private boolean transactionPool() {
        return endpoint.config().policy().connectionPool() == ConnectionPoolMode.TRANSACTION;
    }
}
