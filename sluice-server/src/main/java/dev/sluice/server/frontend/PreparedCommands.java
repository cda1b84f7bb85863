package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
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
import java.util.Map;
import java.util.Optional;

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
    private static final int ER_UNKNOWN_STMT_HANDLER = 1243;
    private static final int ER_MAX_PREPARED_STMT_COUNT_REACHED = 1461;

    private final ClientSession session;

    PreparedCommands(ClientSession session) {
        this.session = session;
    }

    /** Where a statement would run now: its replica if it is a read, else the session's first node. */
    private NodeRef targetFor(PreparedStatement ps) {
        RouteDecision d = Router.routeExecute(ps.statement(), session.routing(), session.endpoint().view(),
                session.endpoint());
        if (d instanceof RouteDecision.ToReplica r) {
            Optional<NodeRef> n = session.proxy().node(r.nodeId());
            if (n.isPresent()) {
                return n.get();
            }
        }
        return session.firstNode().orElseThrow(() -> new IllegalStateException("no node"));
    }

    /** What makes an EXECUTE fit a node: the statement prepared there, its id and parameter types in the packet. */
    private Binding bindingFor(PreparedStatement ps) {
        return (node, frame, send) -> onPrepared(node, ps, frame, backendId -> {
            ByteBuf out = withParamTypes(frame, ps, node.id());
            out.setIntLE(out.readerIndex() + ID_OFFSET, backendId);
            send.accept(out);
        });
    }

    void prepare(ByteBuf frame) {
        if (session.statements().size() >= MAX_STATEMENTS) {
            frame.release();
            session.replyError(ER_MAX_PREPARED_STMT_COUNT_REACHED, "42000", "Can't create more than "
                    + MAX_STATEMENTS + " prepared statements in one session; close the ones you no longer use");
            return;
        }
        int payloadLength = Packets.payloadLength(frame, frame.readerIndex());
        String sql = frame.toString(frame.readerIndex() + ID_OFFSET, payloadLength - 1, StandardCharsets.UTF_8);
        byte[] original = new byte[frame.readableBytes()];
        frame.getBytes(frame.readerIndex(), original);
        int clientId = session.statements().allocateId();
        // Statement ids live on one backend connection: with a transaction pool the session keeps its own.
        session.lockToBackends();
        PreparedStatement ps = new PreparedStatement(clientId, original, sql, Commands.classify(frame));
        sendPrepare(ps, clientId, frame, targetFor(ps));
    }

    /** Prepares on {@code target}; a failure there before it answered prepares it on the next target. */
    private void sendPrepare(PreparedStatement ps, int clientId, ByteBuf frame, NodeRef target) {
        session.keepPrepareForRetry(frame, target.id(), again -> sendPrepare(ps, clientId, again, targetFor(ps)));
        session.forward(target, frame, ResponseKind.PREPARE, new CommandListener() {
            @Override
            public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
                ps.preparedOn(target.id(), buf.getIntLE(payloadIndex + 1));
                ps.paramCount(buf.getUnsignedShortLE(payloadIndex + 7));
                buf.setIntLE(payloadIndex + 1, clientId);
                session.statements().add(ps);
            }

            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                if (tracker.endedWithError()) {
                    session.statements().prepareFailed();
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
        boolean cursor = (frame.getUnsignedByte(frame.readerIndex() + EXECUTE_FLAGS_OFFSET) & CURSOR_FLAGS) != 0;
        CommandListener own = !cursor ? CommandListener.NONE : new CommandListener() {
            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                ps.cursorNode(backend.nodeId());
            }
        };
        ResponseKind kind = cursor ? ResponseKind.RESULT_WITH_CURSOR : ResponseKind.RESULT;
        RouteDecision decision;
        if (ps.longDataNode() >= 0) {
            // Long data already went to one node: the statement must run there.
            int node = ps.longDataNode();
            boolean primary = session.endpoint().view().topology().primary().map(p -> p.id() == node).orElse(false);
            decision = primary ? RouteDecision.primary(RouteReason.WRITE) : RouteDecision.replica(node, RouteReason.READ);
            ps.longDataNode(-1);
        } else {
            decision = Router.routeExecute(ps.statement(), session.routing(), session.endpoint().view(),
                    session.endpoint());
        }
        session.executor().run(ps.statement(), decision, frame, kind, own, bindingFor(ps));
    }

    void sendLongData(ByteBuf frame) {
        Optional<PreparedStatement> found = session.statements().get(frame.getIntLE(frame.readerIndex() + ID_OFFSET));
        if (found.isEmpty()) {
            // The server ignores long data for unknown statements; so do we (it has no response).
            frame.release();
            return;
        }
        PreparedStatement ps = found.get();
        NodeRef target = ps.longDataNode() >= 0 ? session.proxy().node(ps.longDataNode()).orElseGet(() -> targetFor(ps))
                : targetFor(ps);
        ps.longDataNode(target.id());
        session.holdCommand();
        onPrepared(target, ps, frame, backendId -> {
            frame.setIntLE(frame.readerIndex() + ID_OFFSET, backendId);
            session.sendWithoutResponse(target, frame);
        });
    }

    void close(ByteBuf frame) {
        int clientId = frame.getIntLE(frame.readerIndex() + ID_OFFSET);
        session.statements().remove(clientId).ifPresent(ps -> {
            for (Map.Entry<Integer, Integer> e : ps.backendIds().entrySet()) {
                BackendConnection b = session.backends().ready(e.getKey());
                if (b != null) {
                    ByteBuf copy = frame.copy();
                    copy.setIntLE(copy.readerIndex() + ID_OFFSET, e.getValue());
                    b.write(copy, true);
                }
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
        ps.longDataNode(-1);
        Integer answering = null;
        for (Map.Entry<Integer, Integer> e : ps.backendIds().entrySet()) {
            BackendConnection b = session.backends().ready(e.getKey());
            if (b == null) {
                continue;
            }
            if (answering == null) {
                answering = e.getKey();
                continue;
            }
            ByteBuf copy = frame.copy();
            copy.setIntLE(copy.readerIndex() + ID_OFFSET, e.getValue());
            b.send(copy, ResponseKind.SINGLE, new DiscardingSink(session));
        }
        if (answering == null) {
            frame.release();
            session.replyOk();
            return;
        }
        frame.setIntLE(frame.readerIndex() + ID_OFFSET, ps.backendId(answering));
        session.forward(session.proxy().node(answering).orElseThrow(), frame, ResponseKind.SINGLE,
                CommandListener.NONE);
    }

    void fetch(ByteBuf frame) {
        Optional<PreparedStatement> found = lookup(frame, "mysqld_stmt_fetch");
        if (found.isEmpty()) {
            return;
        }
        PreparedStatement ps = found.get();
        Optional<NodeRef> node = ps.cursorNode() < 0 ? Optional.empty() : session.proxy().node(ps.cursorNode());
        Integer backendId = node.map(n -> ps.backendId(n.id())).orElse(null);
        if (node.isEmpty() || backendId == null || session.backends().ready(node.get().id()) == null) {
            frame.release();
            session.replyError(1421, "HY000", "The statement (" + ps.clientId() + ") has no open cursor.");
            return;
        }
        frame.setIntLE(frame.readerIndex() + ID_OFFSET, backendId);
        session.forward(node.get(), frame, ResponseKind.FETCH, CommandListener.NONE);
    }

    private Optional<PreparedStatement> lookup(ByteBuf frame, String where) {
        int clientId = frame.getIntLE(frame.readerIndex() + ID_OFFSET);
        Optional<PreparedStatement> ps = session.statements().get(clientId);
        if (ps.isEmpty()) {
            frame.release();
            session.replyError(ER_UNKNOWN_STMT_HANDLER, "HY000", "Unknown prepared statement handler ("
                    + Integer.toUnsignedString(clientId) + ") given to " + where);
        }
        return ps;
    }

    /** Runs {@code then} with the backend's id for {@code ps} on {@code node}, preparing it there first if needed. */
    private void onPrepared(NodeRef node, PreparedStatement ps, ByteBuf frame, java.util.function.IntConsumer then) {
        Integer known = ps.backendId(node.id());
        if (known != null && session.backends().ready(node.id()) != null) {
            then.accept(known);
            return;
        }
        session.holdCommand();
        session.withBackend(node, frame, b -> {
            Integer again = ps.backendId(node.id());
            if (again != null) {
                then.accept(again);
                return;
            }
            ByteBuf prepare = b.channel().alloc().buffer(ps.prepareFrame().length).writeBytes(ps.prepareFrame());
            b.send(prepare, ResponseKind.PREPARE, new PrepareOnBackend(session, b, ps, frame, then,
                    () -> onPrepared(node, ps, frame, then)));
        });
    }

    /**
     * The EXECUTE to send to {@code nodeId}: the client's own packet, or — when it leaves out the
     * parameter types and that backend has not seen them — a copy with the types put back.
     */
    private ByteBuf withParamTypes(ByteBuf frame, PreparedStatement ps, int nodeId) {
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
            ps.paramTypes(types, nodeId);
            return frame;
        }
        if (ps.paramTypes() == null || ps.typesKnownBy(nodeId)) {
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
        ps.typesSentTo(nodeId);
        return out;
    }

    /** The answer to a PREPARE Sluice sent itself, to have the statement on one more backend. */
    private static final class PrepareOnBackend extends DiscardingSink {
        private final BackendConnection backend;
        private final PreparedStatement ps;
        private final ByteBuf heldFrame;
        private final java.util.function.IntConsumer then;
        private int backendId = -1;
        private BackendException.ServerError error;

        /** Prepares it again, on whatever connection the session now has to that node. */
        private final Runnable again;

        PrepareOnBackend(ClientSession session, BackendConnection backend, PreparedStatement ps, ByteBuf heldFrame,
                java.util.function.IntConsumer then, Runnable again) {
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
                ps.preparedOn(backend.nodeId(), backendId);
                then.accept(backendId);
                return;
            }
            heldFrame.release();
            BackendException.ServerError e = error != null ? error
                    : new BackendException.ServerError(1105, "HY000", "could not prepare the statement on backend '"
                            + backend.nodeName() + "'");
            session().commandFailed(e.code(), e.sqlState(), e.message());
        }

        @Override
        public void onFailure(BackendConnection b, Throwable cause) {
            super.onFailure(b, cause);
            heldFrame.release();
            session().commandFailed(2013, "HY000", "Lost connection to backend '" + b.nodeName()
                    + "' while preparing the statement there; retry");
        }
    }
}
