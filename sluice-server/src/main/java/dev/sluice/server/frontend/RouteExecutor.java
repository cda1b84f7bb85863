package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.ConsistencyRequirement;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteError;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.sql.AutocommitChange;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.routing.sql.TransactionControl;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.SessionTracking;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Carries out a routing decision for the client's current command: sends it to the primary, to
 * a replica, to every backend, or answers it without a backend.
 */
final class RouteExecutor {
    private static final String NO_PRIMARY_STATE = "HY000";

    private final ClientSession session;
    private final StatementListener listener;

    RouteExecutor(ClientSession session) {
        this.session = session;
        this.listener = new StatementListener(session.routing(), session.previous(), session.identity().capabilities());
    }

    /** Runs a command as its decision says. */
    void run(RoutedCommand c) {
        if (session.switchover().parks(c)) {
            // BEHAVIOUR §10: a switchover is moving the primary; the command runs when it is done.
            return;
        }
        RouteDecision decision = c.decision();
        if (decision instanceof RouteDecision.ToPrimary) {
            toPrimary(c);
        } else if (decision instanceof RouteDecision.ToReplica r) {
            toReplica(c, r);
        } else if (decision instanceof RouteDecision.NeedPrimaryPosition n) {
            session.consistency().atPrimaryPosition(c, n.onTimeout());
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
            session.replies().error(e.errorCode(), e.sqlState(), e.message());
        } else if (decision instanceof RouteDecision.AnswerLocally) {
            routed(null, "local", decision);
            c.release();
            answerLastGtid(c.statement());
        } else {
            throw new IllegalStateException("unknown decision " + decision);
        }
    }

    void toPrimary(RoutedCommand c) {
        Optional<Node> primary = session.endpoint().view().topology().primary();
        if (primary.isEmpty()) {
            c.release();
            session.replies().error(ErrorCodes.ER_UNKNOWN_ERROR, NO_PRIMARY_STATE, "no primary is known for endpoint '"
                    + session.endpoint().name() + "': writes cannot run now; retry when the cluster has a primary");
            return;
        }
        Node p = primary.get();
        if (c.decision().reason() == RouteReason.WRITE && p.state().reachable() && p.state().readOnly()) {
            c.release();
            session.replies().error(ErrorCodes.ER_OPTION_PREVENTS_STATEMENT, NO_PRIMARY_STATE, "the primary '" + p.name()
                    + "' is read-only right now (a switchover may be in progress): the write was not run; retry");
            return;
        }
        TransactionControl control = c.statement().transactionControl();
        if (control == TransactionControl.BEGIN && !c.binary()
                && session.endpoint().config().policy().transactionSplitting()) {
            session.routing().onStatementSent(c.statement(), c.decision());
            if (session.routing().transactionSplittable()) {
                // BEHAVIOUR §6: the transaction opens on the primary only when its first write comes.
                routed(null, "local", c.decision());
                session.deferBegin(c.frame());
                return;
            }
            sendToPrimary(c, p);
            return;
        }
        if (session.hasDeferredBegin() && (control == TransactionControl.COMMIT
                || control == TransactionControl.ROLLBACK)) {
            // A split transaction that never wrote: it never existed on the primary.
            session.routing().onStatementSent(c.statement(), c.decision());
            routed(null, "local", c.decision());
            c.release();
            session.endDeferredTransaction();
            return;
        }
        session.routing().onStatementSent(c.statement(), c.decision());
        sendToPrimary(c, p);
    }

    private void sendToPrimary(RoutedCommand c, Node p) {
        Statement statement = c.statement();
        NodeRef node = session.proxy().ref(p);
        routed(node.name(), "primary", c.decision());
        ByteBuf begin = session.takeDeferredBegin();
        if (begin != null) {
            session.sendBefore(node, begin);
        }
        if (statement.has(StatementProperty.LAST_INSERT_ID) && session.transactionPool()) {
            // The connection may have run other clients' INSERTs since this client's last one:
            // it gets this client's value first (BEHAVIOUR §7).
            session.sendBefore(node, InternalQuery.queryPacket(session.client().alloc().buffer(),
                    "SET @@session.last_insert_id = " + session.previous().lastInsertId()));
        }
        CommandListener then = c.own();
        if (!statement.userVariablesAssigned().isEmpty()) {
            if (!c.binary()) {
                then = new UserVariablePropagation(session, statement.userVariablesAssigned(), c.own());
            } else {
                // Through the binary protocol its values are not read back: they stay on the primary.
                session.routing().userVariablesDiverged();
            }
        }
        send(c.listenedBy(then), node);
    }

    private void toReplica(RoutedCommand c, RouteDecision.ToReplica decision) {
        Optional<NodeRef> node = session.proxy().node(decision.nodeId());
        if (node.isEmpty()) {
            toPrimary(c.routedAs(RouteDecision.primary(RouteReason.FALLBACK_NO_REPLICA)));
            return;
        }
        if (decision.consistency() instanceof ConsistencyRequirement.WaitFor wait) {
            session.consistency().waitThenRun(c, wait, node.get());
            return;
        }
        sendToReplica(c, node.get());
    }

    /** Sends a read to a replica; a failure before any byte reached the client is retried elsewhere. */
    void sendToReplica(RoutedCommand c, NodeRef node) {
        session.routing().onStatementSent(c.statement(), c.decision());
        routed(node.name(), "replica", c.decision());
        session.keepForRetry(c, node.id());
        send(c, node);
    }

    /** Sends the command to {@code node}, adapted to it first if it is a prepared one. */
    private void send(RoutedCommand c, NodeRef node) {
        CommandListener listening = listener.with(c.own(), leavesNoTrace(c));
        if (!c.binary()) {
            session.forward(node, c.frame(), c.kind(), listening);
        } else {
            session.holdCommand();
            c.binding().bind(node, c.frame(), (b, bound) -> session.forwardOn(b, bound, c.kind(), listening));
        }
    }

    /** Only a pooled connection's next user cares; the test reads the statement's start. */
    private boolean leavesNoTrace(RoutedCommand c) {
        return session.pooled() && Traceless.of(c.statement(), c.frame(), c.binding());
    }

    /** A session command: the client gets the primary's answer; every other open backend runs it too. */
    private void everywhere(RoutedCommand c) {
        Statement statement = c.statement();
        RouteDecision decision = c.decision();
        ByteBuf frame = c.frame();
        ResponseKind kind = c.kind();
        if (session.setShortcut().answer(statement, decision, frame)) {
            return;
        }
        Optional<Node> primary = session.endpoint().view().topology().primary();
        Optional<NodeRef> answering = primary.map(session.proxy()::ref);
        if (answering.isEmpty() || (!primary.get().state().reachable()
                && session.backends().ready(primary.get().id()) == null && !session.backends().isEmpty())) {
            // No primary to answer: the first open backend does, so a session on replicas keeps working.
            List<BackendConnection> open = new ArrayList<>(session.backends().all());
            if (!open.isEmpty()) {
                answering = session.proxy().node(open.get(0).nodeId());
            }
        }
        if (answering.isEmpty()) {
            frame.release();
            session.replies().error(ErrorCodes.ER_UNKNOWN_ERROR, NO_PRIMARY_STATE, "no backend available for endpoint '"
                    + session.endpoint().name() + "'");
            return;
        }
        int answeringId = answering.get().id();
        boolean autocommitOff = statement.autocommitChange() == AutocommitChange.OFF;
        boolean retrack = SessionTracking.mayChangeTracking(frame);
        SessionCommandAgreement agreement = new SessionCommandAgreement(session);
        for (BackendConnection other : session.backends().all()) {
            if (other.nodeId() != answeringId) {
                other.send(frame.retainedDuplicate(), kind, agreement.other());
                if (autocommitOff && isReplica(other.nodeId())) {
                    Commands.keepAutocommit(session, other);
                }
                if (retrack) {
                    retrack(other);
                }
            }
        }
        session.routing().onStatementSent(statement, decision);
        routed(answering.get().name(), "all", decision);
        boolean traceless = leavesNoTrace(c);
        session.forward(answering.get(), frame, kind, listener.with(agreement.answering(
                session.setShortcut().learning(statement, retrack ? retrackAfterAnswer : CommandListener.NONE)),
                traceless));
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
        SessionTracking.enable(b, new Commands.RetrackSink(session));
    }

    private void routed(String node, String target, RouteDecision decision) {
        session.proxy().metrics().statementRouted(session.endpoint().name(), node, target,
                decision.reason().metricName());
    }

    private boolean isReplica(int nodeId) {
        return session.endpoint().view().topology().node(nodeId).map(n -> !n.isPrimary()).orElse(false);
    }

    /** {@code SELECT sluice_last_gtid()}: the GTID of this session's last commit, a consistency token. */
    private void answerLastGtid(Statement statement) {
        session.replies().textResult(session.serverStatus(), List.of(LastGtidAnswer.column(statement)),
                List.of(LastGtidAnswer.row(session.routing())));
        session.previous().answeredLocally(true);
    }

    /**
     * {@code SELECT ROW_COUNT()} or {@code SELECT FOUND_ROWS()} under a transaction pool: answered
     * from what the client's own previous statement returned (BEHAVIOUR §7).
     */
    void answerNumber(String column, long value) {
        List<String> row = new ArrayList<>(1);
        row.add(Long.toString(value));
        session.replies().textResult(session.serverStatus(), List.of(column), List.of(row));
        session.previous().answeredLocally(true);
    }
}
