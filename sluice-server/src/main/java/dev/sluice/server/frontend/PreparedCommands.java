package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.BinaryResultWriter;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The binary protocol's commands. The client sees one statement id; each backend that runs the
 * statement has its own, prepared there the first time it is needed. Ids are rewritten in place
 * in the client's packets (offset 1 of the payload, 4 bytes) and in PREPARE_OK on the way back.
 *
 * <p>Sharp edge: an EXECUTE may omit the parameter types ("new params bound" = 0) when they did
 * not change — but a backend that never saw them would misread the values, so the last types
 * the client sent are put back in for such a backend.
 */
final class PreparedCommands {
    private static final int ID_OFFSET = Packets.HEADER_SIZE + 1;
    private static final int EXECUTE_FLAGS_OFFSET = ID_OFFSET + 4;
    private static final int EXECUTE_PARAMS_OFFSET = EXECUTE_FLAGS_OFFSET + 1 + 4;
    private static final int CURSOR_FLAGS = 0x07;
    private static final int MAX_STATEMENTS = 16_382;

    private final ClientSession session;

    PreparedCommands(ClientSession session) {
        this.session = session;
    }

    /**
     * Where a statement would run now: its replica if it is a read, else the session's first node;
     * empty when no node can take it (no primary known, no readable replica).
     */
    private Optional<NodeRef> targetFor(PreparedStatement ps) {
        RouteDecision d = Router.routeExecute(ps.statement(), session.routing(), session.endpoint().view(),
                session.endpoint());
        if (d instanceof RouteDecision.ToReplica r) {
            Optional<NodeRef> n = session.proxy().node(r.nodeId());
            if (n.isPresent()) {
                return n;
            }
        }
        return session.firstNode();
    }

    private void noNodeFor(ByteBuf frame) {
        frame.release();
        session.replies().error(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL, "no node of endpoint '"
                + session.endpoint().name() + "' can take this statement now (no primary known, no readable "
                + "replica); retry when the cluster has recovered");
    }

    /** What makes an EXECUTE fit a node: the statement prepared there, its id and parameter types in the packet. */
    private Binding bindingFor(PreparedStatement ps) {
        return (node, frame, send) -> onPrepared(node, ps, frame, (b, backendId) -> {
            ByteBuf out = withParamTypes(frame, ps, b);
            out.setIntLE(out.readerIndex() + ID_OFFSET, backendId);
            send.accept(b, out);
        });
    }

    void prepare(ByteBuf packet) {
        ByteBuf frame = OwnConnectionId.replaced(session, packet);
        if (session.statements().size() >= MAX_STATEMENTS) {
            frame.release();
            session.replies().error(ErrorCodes.ER_MAX_PREPARED_STMT_COUNT_REACHED, "42000", "Can't create more than "
                    + MAX_STATEMENTS + " prepared statements in one session; close the ones you no longer use");
            return;
        }
        int payloadLength = Packets.payloadLength(frame, frame.readerIndex());
        String sql = frame.toString(frame.readerIndex() + ID_OFFSET, payloadLength - 1,
                session.routing().clientCharset().java());
        byte[] original = new byte[frame.readableBytes()];
        frame.getBytes(frame.readerIndex(), original);
        int clientId = session.statements().allocateId();
        dev.sluice.routing.sql.Statement statement = Commands.classify(frame, session.routing().clientCharset());
        if (Router.routeExecute(statement, session.routing(), session.endpoint().view(), session.endpoint())
                instanceof RouteDecision.AnswerLocally) {
            frame.release();
            PreparedStatement ps = new PreparedStatement(clientId, original, sql, statement, true);
            session.statements().add(ps);
            ByteBuf out = session.client().alloc().buffer();
            BinaryResultWriter.writePrepareOk(out, session.replies().sequence(), session.identity().capabilities(), clientId,
                    LastGtidAnswer.columns(statement));
            session.client().writeAndFlush(out, session.client().voidPromise());
            return;
        }
        // Statement ids live on one backend connection: with a transaction pool the session keeps its own.
        session.lockToBackends();
        PreparedStatement ps = new PreparedStatement(clientId, original, sql, statement);
        sendPrepare(ps, clientId, frame);
    }

    /** Prepares where the statement would run; a failure there before it answered prepares it on the next node. */
    private void sendPrepare(PreparedStatement ps, int clientId, ByteBuf frame) {
        Optional<NodeRef> found = targetFor(ps);
        if (found.isEmpty()) {
            noNodeFor(frame);
            return;
        }
        NodeRef target = found.get();
        session.keepPrepareForRetry(frame, target.id(), again -> sendPrepare(ps, clientId, again));
        session.forward(target, frame, ResponseKind.PREPARE, new CommandListener() {
            private int backendId = -1;

            @Override
            public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
                backendId = buf.getIntLE(payloadIndex + 1);
                ps.paramCount(buf.getUnsignedShortLE(payloadIndex + 7));
                buf.setIntLE(payloadIndex + 1, clientId);
                session.statements().add(ps);
            }

            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                if (tracker.endedWithError() || backendId < 0) {
                    session.statements().prepareFailed();
                } else {
                    ps.preparedOn(backend, backendId);
                }
            }
        });
    }

    void execute(ByteBuf frame) {
        Optional<PreparedStatement> found = lookup(frame, "mysqld_stmt_execute");
        if (found.isEmpty()) {
            return;
        }
        PreparedStatement ps = found.get();
        if (ps.answeredBySluice()) {
            frame.release();
            session.proxy().metrics().statementRouted(session.endpoint().name(), null, "local",
                    RouteReason.LOCAL.metricName());
            ByteBuf out = session.client().alloc().buffer();
            BinaryResultWriter.write(out, session.replies().sequence(), session.identity().capabilities(),
                    session.serverStatus(), LastGtidAnswer.columns(ps.statement()),
                    List.of(LastGtidAnswer.row(session.routing())));
            session.client().writeAndFlush(out, session.client().voidPromise());
            session.previous().answeredLocally(true);
            return;
        }
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
            if (!longData.is(session.backends().ready(node))) {
                frame.release();
                session.replies().error(ErrorCodes.CR_SERVER_LOST, "HY000", "The long data sent for statement (" + ps.clientId()
                        + ") was lost with Sluice's connection to its backend; send it again, then execute");
                return;
            }
            boolean primary = session.endpoint().view().topology().primary().map(p -> p.id() == node).orElse(false);
            decision = primary ? RouteDecision.primary(RouteReason.WRITE) : RouteDecision.replica(node, RouteReason.READ);
        } else {
            decision = Router.routeExecute(ps.statement(), session.routing(), session.endpoint().view(),
                    session.endpoint());
        }
        session.executor().run(new RoutedCommand(ps.statement(), decision, frame, kind, own, bindingFor(ps)));
    }

    void sendLongData(ByteBuf frame) {
        Optional<PreparedStatement> found = session.statements().get(frame.getIntLE(frame.readerIndex() + ID_OFFSET));
        if (found.isEmpty()) {
            // The server ignores long data for unknown statements; so do we (it has no response).
            frame.release();
            return;
        }
        PreparedStatement ps = found.get();
        if (ps.answeredBySluice()) {
            // It has no parameter to send data for: the server ignores such data, and so do we.
            frame.release();
            return;
        }
        PreparedStatement.Place longData = ps.longData();
        Optional<NodeRef> where = longData.isNone() ? targetFor(ps)
                : session.proxy().node(longData.nodeId()).or(() -> targetFor(ps));
        if (where.isEmpty()) {
            // COM_STMT_SEND_LONG_DATA has no answer: the EXECUTE that follows will say what went wrong.
            frame.release();
            return;
        }
        NodeRef target = where.get();
        session.holdCommand();
        onPrepared(target, ps, frame, (b, backendId) -> {
            ps.longDataOn(b);
            frame.setIntLE(frame.readerIndex() + ID_OFFSET, backendId);
            session.sendWithoutResponse(b, frame);
        });
    }

    void close(ByteBuf frame) {
        int clientId = frame.getIntLE(frame.readerIndex() + ID_OFFSET);
        session.statements().remove(clientId).ifPresent(ps -> {
            for (Map.Entry<BackendConnection, Integer> e : heldBy(ps).entrySet()) {
                ByteBuf copy = frame.copy();
                copy.setIntLE(copy.readerIndex() + ID_OFFSET, e.getValue());
                e.getKey().write(copy, true);
            }
        });
        frame.release();
    }

    void reset(ByteBuf frame) {
        Optional<PreparedStatement> found = lookup(frame, "mysqld_stmt_reset");
        if (found.isEmpty()) {
            return;
        }
        PreparedStatement ps = found.get();
        ps.longDataUsed();
        BackendConnection answering = null;
        for (Map.Entry<BackendConnection, Integer> e : heldBy(ps).entrySet()) {
            if (answering == null) {
                answering = e.getKey();
                frame.setIntLE(frame.readerIndex() + ID_OFFSET, e.getValue());
                continue;
            }
            ByteBuf copy = frame.copy();
            copy.setIntLE(copy.readerIndex() + ID_OFFSET, e.getValue());
            e.getKey().send(copy, ResponseKind.SINGLE, new DiscardingSink(session));
        }
        if (answering == null) {
            frame.release();
            session.replyOk();
            return;
        }
        session.forwardOn(answering, frame, ResponseKind.SINGLE, CommandListener.NONE);
    }

    /** The session's connections that hold {@code ps}, with its id on each. */
    private Map<BackendConnection, Integer> heldBy(PreparedStatement ps) {
        Map<BackendConnection, Integer> held = new java.util.LinkedHashMap<>();
        for (Map.Entry<Integer, PreparedStatement.OnConnection> e : ps.preparedByNode().entrySet()) {
            BackendConnection b = session.backends().ready(e.getKey());
            if (b != null && b.serial() == e.getValue().connectionSerial()) {
                held.put(b, e.getValue().backendId());
            }
        }
        return held;
    }

    void fetch(ByteBuf frame) {
        Optional<PreparedStatement> found = lookup(frame, "mysqld_stmt_fetch");
        if (found.isEmpty()) {
            return;
        }
        PreparedStatement ps = found.get();
        PreparedStatement.Place cursor = ps.cursor();
        BackendConnection b = cursor.isNone() ? null : session.backends().ready(cursor.nodeId());
        OptionalInt backendId = cursor.is(b) ? ps.idOn(b) : OptionalInt.empty();
        if (backendId.isEmpty()) {
            frame.release();
            session.replies().error(ErrorCodes.ER_STMT_HAS_NO_OPEN_CURSOR, ErrorCodes.SQLSTATE_GENERAL,
                    "The statement (" + ps.clientId() + ") has no open cursor.");
            return;
        }
        frame.setIntLE(frame.readerIndex() + ID_OFFSET, backendId.getAsInt());
        session.forwardOn(b, frame, ResponseKind.FETCH, CommandListener.NONE);
    }

    private Optional<PreparedStatement> lookup(ByteBuf frame, String where) {
        int clientId = frame.getIntLE(frame.readerIndex() + ID_OFFSET);
        Optional<PreparedStatement> ps = session.statements().get(clientId);
        if (ps.isEmpty()) {
            frame.release();
            session.replies().error(ErrorCodes.ER_UNKNOWN_STMT_HANDLER, "HY000", "Unknown prepared statement handler ("
                    + Integer.toUnsignedString(clientId) + ") given to " + where);
        }
        return ps;
    }

    /**
     * Runs {@code then} with the session's connection to {@code node} and the statement's id on
     * it, preparing it there first if that connection does not have it.
     */
    private void onPrepared(NodeRef node, PreparedStatement ps, ByteBuf frame, PreparedOn then) {
        BackendConnection ready = session.backends().ready(node.id());
        OptionalInt known = ready == null ? OptionalInt.empty() : ps.idOn(ready);
        if (known.isPresent()) {
            then.accept(ready, known.getAsInt());
            return;
        }
        session.holdCommand();
        session.withBackend(node, frame, b -> {
            OptionalInt again = ps.idOn(b);
            if (again.isPresent()) {
                then.accept(b, again.getAsInt());
                return;
            }
            ByteBuf prepare = b.channel().alloc().buffer(ps.prepareFrame().length).writeBytes(ps.prepareFrame());
            b.send(prepare, ResponseKind.PREPARE, new PrepareOnBackend(session, b, ps, frame, then,
                    () -> onPrepared(node, ps, frame, then)));
        });
    }

    /** What runs once a statement is prepared on a connection: the connection and its id there. */
    @FunctionalInterface
    interface PreparedOn {
        void accept(BackendConnection backend, int backendStatementId);
    }

    /**
     * The EXECUTE to send to {@code b}: the client's own packet, or — when it leaves out the
     * parameter types and that connection has not seen them — a copy with the types put back.
     */
    private ByteBuf withParamTypes(ByteBuf frame, PreparedStatement ps, BackendConnection b) {
        int n = ps.paramCount();
        if (n == 0 || frame.getUnsignedByte(frame.readerIndex() + Packets.HEADER_SIZE) != 0x17) {
            return frame;
        }
        int boundFlagAt = frame.readerIndex() + EXECUTE_PARAMS_OFFSET + (n + 7) / 8;
        if (boundFlagAt >= frame.writerIndex() || Packets.payloadLength(frame, frame.readerIndex()) == Packets.MAX_PAYLOAD) {
            return frame;
        }
        if (frame.getUnsignedByte(boundFlagAt) == 1) {
            if (boundFlagAt + 1 + 2 * n > frame.writerIndex()) {
                // Fewer type bytes than parameters: malformed; the backend will say so, nothing to remember.
                return frame;
            }
            byte[] types = new byte[2 * n];
            frame.getBytes(boundFlagAt + 1, types);
            ps.paramTypes(types, b);
            return frame;
        }
        if (ps.paramTypes() == null || ps.typesKnownBy(b)) {
            return frame;
        }
        byte[] types = ps.paramTypes();
        int payload = Packets.payloadLength(frame, frame.readerIndex()) + types.length;
        if (payload >= Packets.MAX_PAYLOAD) {
            return frame;
        }
        ByteBuf out = frame.alloc().buffer(Packets.HEADER_SIZE + payload);
        out.writeMediumLE(payload).writeByte(Packets.sequenceId(frame, frame.readerIndex()));
        out.writeBytes(frame, frame.readerIndex() + Packets.HEADER_SIZE, boundFlagAt - frame.readerIndex()
                - Packets.HEADER_SIZE);
        out.writeByte(1).writeBytes(types);
        out.writeBytes(frame, boundFlagAt + 1, frame.writerIndex() - boundFlagAt - 1);
        frame.release();
        ps.typesSentTo(b);
        return out;
    }

    /** The answer to a PREPARE Sluice sent itself, to have the statement on one more backend. */
    private static final class PrepareOnBackend extends DiscardingSink {
        private final BackendConnection backend;
        private final PreparedStatement ps;
        private final ByteBuf heldFrame;
        private final PreparedOn then;
        private int backendId = -1;
        private BackendException.ServerError error;

        /** Prepares it again, on whatever connection the session now has to that node. */
        private final Runnable again;

        PrepareOnBackend(ClientSession session, BackendConnection backend, PreparedStatement ps, ByteBuf heldFrame,
                PreparedOn then, Runnable again) {
            super(session);
            this.backend = backend;
            this.ps = ps;
            this.heldFrame = heldFrame;
            this.then = then;
            this.again = again;
        }

        @Override
        public dev.sluice.protocol.stream.ResponseListener listener() {
            return new dev.sluice.protocol.stream.ResponseListener() {
                @Override
                public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
                    backendId = buf.getIntLE(payloadIndex + 1);
                }

                @Override
                public void onError(ByteBuf buf, int payloadIndex, int length) {
                    ByteBuf p = buf.slice(payloadIndex, length);
                    var err = dev.sluice.protocol.response.ErrPacket.decode(p);
                    error = new BackendException.ServerError(err.errorCode(), err.sqlState(), err.message());
                }
            };
        }

        @Override
        public void onComplete(BackendConnection b, ResponseTracker tracker) {
            if (session().backends().ready(backend.nodeId()) != backend && !session().isClosed()) {
                // The session left this connection while the answer was on its way (the monitor
                // found the node unreachable): the id names a statement on a connection that is
                // gone, and on the one that replaces it the same number may name another statement.
                again.run();
                return;
            }
            if (backendId >= 0 && error == null) {
                ps.preparedOn(backend, backendId);
                then.accept(backend, backendId);
                return;
            }
            heldFrame.release();
            BackendException.ServerError e = error != null ? error
                    : new BackendException.ServerError(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                            "could not prepare the statement on backend '"
                            + backend.nodeName() + "'");
            session().commandFailed(e.code(), e.sqlState(), e.message());
        }

        /**
         * The connection failed before the client's command was sent on it: for the session, the
         * command failed there before any byte of its answer — a read is retried elsewhere.
         */
        @Override
        public void onFailure(BackendConnection b, Throwable cause) {
            heldFrame.release();
            session().onBackendFailure(b, cause, 0);
        }
    }
}
