package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Statement;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * The binary protocol's commands. The client sees one statement id; each backend that runs the
 * statement has its own, prepared there the first time it is needed ({@link PreparedOnConnection}).
 * Ids are rewritten in place in the client's packets (offset 1 of the payload, 4 bytes) and in
 * PREPARE_OK on the way back.
 */
final class PreparedCommands {
    private static final int ID_OFFSET = PreparedOnConnection.ID_OFFSET;
    private static final int EXECUTE_FLAGS_OFFSET = ID_OFFSET + 4;
    private static final int CURSOR_FLAGS = 0x07;
    private static final int MAX_STATEMENTS = 16_382;

    private final CurrentCommand command;
    private final BackgroundAnswers background;
    private final PreparedStatements statements;
    private final PreparedOnConnection onConnection;
    private final RouteExecutor executor;
    private final RoutingSession routing;
    private final EndpointRuntime endpoint;
    private final NodeDirectory nodes;
    private final Supplier<Optional<NodeRef>> firstNode;
    private final SessionBackends backends;
    private final ReadRetries retries;
    private final TransactionPoolHandBack handBack;
    private final OwnConnectionId ownId;
    private final LocalAnswers answers;
    private final SluiceMetrics metrics;

    /** @param firstNode where a statement that is not a read runs: the session's first node */
    PreparedCommands(CurrentCommand command, BackgroundAnswers background, PreparedStatements statements,
            PreparedOnConnection onConnection, RouteExecutor executor, RoutingSession routing, EndpointRuntime endpoint,
            NodeDirectory nodes, Supplier<Optional<NodeRef>> firstNode, SessionBackends backends, ReadRetries retries,
            TransactionPoolHandBack handBack, OwnConnectionId ownId, LocalAnswers answers, SluiceMetrics metrics) {
        this.command = command;
        this.background = background;
        this.statements = statements;
        this.onConnection = onConnection;
        this.executor = executor;
        this.routing = routing;
        this.endpoint = endpoint;
        this.nodes = nodes;
        this.firstNode = firstNode;
        this.backends = backends;
        this.retries = retries;
        this.handBack = handBack;
        this.ownId = ownId;
        this.answers = answers;
        this.metrics = metrics;
    }

    /**
     * Where a statement would run now: its replica if it is a read, else the session's first node;
     * empty when no node can take it (no primary known, no readable replica).
     */
    private Optional<NodeRef> targetFor(PreparedStatement ps, boolean lastTry) {
        RouteDecision d = executor.forRetry(Router.routeExecute(ps.statement(), routing, endpoint.view(), endpoint),
                lastTry);
        if (d instanceof RouteDecision.ToReplica r) {
            Optional<NodeRef> n = nodes.node(r.nodeId());
            if (n.isPresent()) {
                return n;
            }
        }
        return firstNode.get();
    }

    private void noNodeFor(ByteBuf frame) {
        frame.release();
        answers.error(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL, "no node of endpoint '"
                + endpoint.name() + "' can take this statement now (no primary known, no readable "
                + "replica); retry when the cluster has recovered");
    }

    void prepare(CommandFrame f) {
        ownId.replaceIn(f);
        ByteBuf frame = f.bytes();
        if (statements.size() >= MAX_STATEMENTS) {
            f.release();
            answers.error(ErrorCodes.ER_MAX_PREPARED_STMT_COUNT_REACHED, "42000", "Can't create more than "
                    + MAX_STATEMENTS + " prepared statements in one session; close the ones you no longer use");
            return;
        }
        int payloadLength = Packets.payloadLength(frame, frame.readerIndex());
        String sql = frame.toString(frame.readerIndex() + ID_OFFSET, payloadLength - 1, routing.clientCharset().java());
        byte[] original = new byte[frame.readableBytes()];
        frame.getBytes(frame.readerIndex(), original);
        int clientId = statements.allocateId();
        Statement statement = Commands.classify(frame, routing.clientCharset());
        if (Router.routeExecute(statement, routing, endpoint.view(), endpoint) instanceof RouteDecision.AnswerLocally) {
            f.release();
            statements.add(new PreparedStatement(clientId, original, sql, statement, true));
            answers.prepared(clientId, statement);
            return;
        }
        // Statement ids live on one backend connection: with a transaction pool the session keeps its own.
        handBack.lockByProtocol();
        PreparedStatement ps = new PreparedStatement(clientId, original, sql, statement);
        sendPrepare(ps, clientId, f.take(), false);
    }

    /**
     * Prepares where the statement would run; a failure there before it answered prepares it on the
     * next node, and the last try on the primary as a read's last try goes there.
     */
    private void sendPrepare(PreparedStatement ps, int clientId, ByteBuf frame, boolean lastTry) {
        Optional<NodeRef> found = targetFor(ps, lastTry);
        if (found.isEmpty()) {
            noNodeFor(frame);
            return;
        }
        NodeRef target = found.get();
        retries.keepPrepare(frame, target.id(),
                again -> sendPrepare(ps, clientId, again.command().frame(), again.lastTry()));
        command.forward(target, frame, ResponseKind.PREPARE, new CommandListener() {
            private int backendId = -1;

            @Override
            public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
                backendId = buf.getIntLE(payloadIndex + 1);
                ps.paramCount(buf.getUnsignedShortLE(payloadIndex + 7));
                buf.setIntLE(payloadIndex + 1, clientId);
                statements.add(ps);
            }

            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                if (tracker.endedWithError() || backendId < 0) {
                    statements.prepareFailed();
                } else {
                    ps.preparedOn(backend, backendId);
                }
            }
        });
    }

    void execute(CommandFrame f) {
        Optional<PreparedStatement> found = lookup(f, "mysqld_stmt_execute");
        if (found.isEmpty()) {
            return;
        }
        PreparedStatement ps = found.get();
        if (ps.answeredBySluice()) {
            f.release();
            metrics.statementRouted(endpoint.name(), null, "local", RouteReason.LOCAL.metricName());
            executor.answerLastGtid(ps.statement(), true);
            return;
        }
        ByteBuf frame = f.bytes();
        boolean cursor = (frame.getUnsignedByte(frame.readerIndex() + EXECUTE_FLAGS_OFFSET) & CURSOR_FLAGS) != 0;
        CommandListener own = !cursor ? CommandListener.NONE : new CommandListener() {
            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                ps.cursorOn(backend);
            }
        };
        ResponseKind kind = cursor ? ResponseKind.RESULT_WITH_CURSOR : ResponseKind.RESULT;
        RouteDecision decision;
        PreparedStatement.Place longData = ps.longData();
        if (!longData.isNone()) {
            // Long data already went to one connection: the statement must run there.
            ps.longDataUsed();
            int node = longData.nodeId();
            if (!longData.is(backends.ready(node))) {
                f.release();
                answers.error(ErrorCodes.ER_UNKNOWN_ERROR, "HY000", "The long data sent for statement (" + ps.clientId()
                        + ") was lost with Sluice's connection to its backend; send it again, then execute");
                return;
            }
            boolean primary = endpoint.view().topology().primary().map(p -> p.id() == node).orElse(false);
            decision = primary ? RouteDecision.primary(RouteReason.WRITE) : RouteDecision.replica(node, RouteReason.READ);
        } else {
            decision = Router.routeExecute(ps.statement(), routing, endpoint.view(), endpoint);
        }
        executor.run(new RoutedCommand(ps.statement(), decision, f.take(), kind, own, onConnection.executing(ps)));
    }

    void sendLongData(CommandFrame f) {
        Optional<PreparedStatement> found = statements.get(f.bytes().getIntLE(f.bytes().readerIndex() + ID_OFFSET));
        if (found.isEmpty()) {
            // The server ignores long data for unknown statements; so do we (it has no response).
            f.release();
            return;
        }
        PreparedStatement ps = found.get();
        if (ps.answeredBySluice()) {
            // It has no parameter to send data for: the server ignores such data, and so do we.
            f.release();
            return;
        }
        PreparedStatement.Place longData = ps.longData();
        Optional<NodeRef> where = longData.isNone() ? targetFor(ps, false)
                : nodes.node(longData.nodeId()).or(() -> targetFor(ps, false));
        if (where.isEmpty()) {
            // COM_STMT_SEND_LONG_DATA has no answer: the EXECUTE that follows will say what went wrong.
            f.release();
            return;
        }
        NodeRef target = where.get();
        command.hold();
        ByteBuf frame = f.take();
        onConnection.onPrepared(target, ps, frame, (b, backendId) -> {
            ps.longDataOn(b);
            frame.setIntLE(frame.readerIndex() + ID_OFFSET, backendId);
            command.sendWithoutResponse(b, frame);
        });
    }

    void close(CommandFrame f) {
        ByteBuf frame = f.bytes();
        int clientId = frame.getIntLE(frame.readerIndex() + ID_OFFSET);
        statements.remove(clientId).ifPresent(ps -> {
            for (Map.Entry<BackendConnection, Integer> e : heldBy(ps).entrySet()) {
                ByteBuf copy = frame.copy();
                copy.setIntLE(copy.readerIndex() + ID_OFFSET, e.getValue());
                e.getKey().write(copy, true);
            }
        });
        f.release();
    }

    void reset(CommandFrame f) {
        Optional<PreparedStatement> found = lookup(f, "mysqld_stmt_reset");
        if (found.isEmpty()) {
            return;
        }
        PreparedStatement ps = found.get();
        ps.longDataUsed();
        ByteBuf frame = f.bytes();
        BackendConnection answering = null;
        for (Map.Entry<BackendConnection, Integer> e : heldBy(ps).entrySet()) {
            if (answering == null) {
                answering = e.getKey();
                frame.setIntLE(frame.readerIndex() + ID_OFFSET, e.getValue());
                continue;
            }
            ByteBuf copy = frame.copy();
            copy.setIntLE(copy.readerIndex() + ID_OFFSET, e.getValue());
            e.getKey().send(copy, ResponseKind.SINGLE, new DiscardingSink(background));
        }
        if (answering == null) {
            f.release();
            answers.ok();
            return;
        }
        command.forwardOn(answering, f.take(), ResponseKind.SINGLE, CommandListener.NONE);
    }

    /** The session's connections that hold {@code ps}, with its id on each. */
    private Map<BackendConnection, Integer> heldBy(PreparedStatement ps) {
        Map<BackendConnection, Integer> held = new LinkedHashMap<>();
        for (Map.Entry<Integer, PreparedStatement.OnConnection> e : ps.preparedByNode().entrySet()) {
            BackendConnection b = backends.ready(e.getKey());
            if (b != null && b.serial() == e.getValue().connectionSerial()) {
                held.put(b, e.getValue().backendId());
            }
        }
        return held;
    }

    void fetch(CommandFrame f) {
        Optional<PreparedStatement> found = lookup(f, "mysqld_stmt_fetch");
        if (found.isEmpty()) {
            return;
        }
        PreparedStatement ps = found.get();
        PreparedStatement.Place cursor = ps.cursor();
        BackendConnection b = cursor.isNone() ? null : backends.ready(cursor.nodeId());
        OptionalInt backendId = cursor.is(b) ? ps.idOn(b) : OptionalInt.empty();
        if (backendId.isEmpty()) {
            f.release();
            answers.error(ErrorCodes.ER_STMT_HAS_NO_OPEN_CURSOR, ErrorCodes.SQLSTATE_GENERAL,
                    "The statement (" + ps.clientId() + ") has no open cursor.");
            return;
        }
        ByteBuf frame = f.take();
        frame.setIntLE(frame.readerIndex() + ID_OFFSET, backendId.getAsInt());
        command.forwardOn(b, frame, ResponseKind.FETCH, CommandListener.NONE);
    }

    private Optional<PreparedStatement> lookup(CommandFrame f, String where) {
        int clientId = f.bytes().getIntLE(f.bytes().readerIndex() + ID_OFFSET);
        Optional<PreparedStatement> ps = statements.get(clientId);
        if (ps.isEmpty()) {
            f.release();
            answers.error(ErrorCodes.ER_UNKNOWN_STMT_HANDLER, "HY000", "Unknown prepared statement handler ("
                    + Integer.toUnsignedString(clientId) + ") given to " + where);
        }
        return ps;
    }
}
