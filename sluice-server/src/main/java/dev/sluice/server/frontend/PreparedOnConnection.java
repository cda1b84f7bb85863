package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseListener;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.OptionalInt;

/**
 * A prepared statement made to fit one backend connection: prepared there first if that connection
 * does not hold it, its id on that connection put into the client's packet, and — for an EXECUTE
 * that leaves the parameter types out — the types put back when that connection never saw them
 * (it would misread the values). An id is only ever read through the connection that gave it (see
 * {@link PreparedStatement}).
 */
final class PreparedOnConnection {
    static final int ID_OFFSET = Packets.HEADER_SIZE + 1;
    private static final int EXECUTE_FLAGS_OFFSET = ID_OFFSET + 4;
    private static final int EXECUTE_PARAMS_OFFSET = EXECUTE_FLAGS_OFFSET + 1 + 4;

    private final CurrentCommand command;
    private final BackgroundAnswers background;
    private final SessionBackends backends;

    PreparedOnConnection(CurrentCommand command, BackgroundAnswers background, SessionBackends backends) {
        this.command = command;
        this.background = background;
        this.backends = backends;
    }

    /** What runs once a statement is prepared on a connection: the connection and its id there. */
    @FunctionalInterface
    interface Then {
        void accept(BackendConnection backend, int backendStatementId);
    }

    /** What makes an EXECUTE fit a node: the statement prepared there, its id and parameter types in the packet. */
    Binding executing(PreparedStatement ps) {
        return (node, frame, send) -> onPrepared(node, ps, frame, (b, backendId) -> {
            ByteBuf out = withParamTypes(frame, ps, b);
            out.setIntLE(out.readerIndex() + ID_OFFSET, backendId);
            send.accept(b, out);
        });
    }

    /**
     * Runs {@code then} with the session's connection to {@code node} and the statement's id on
     * it, preparing it there first if that connection does not have it.
     */
    void onPrepared(NodeRef node, PreparedStatement ps, ByteBuf frame, Then then) {
        BackendConnection ready = backends.ready(node.id());
        OptionalInt known = ready == null ? OptionalInt.empty() : ps.idOn(ready);
        if (known.isPresent()) {
            then.accept(ready, known.getAsInt());
            return;
        }
        command.hold();
        command.withBackend(node, frame, b -> {
            OptionalInt again = ps.idOn(b);
            if (again.isPresent()) {
                then.accept(b, again.getAsInt());
                return;
            }
            ByteBuf prepare = b.channel().alloc().buffer(ps.prepareFrame().length).writeBytes(ps.prepareFrame());
            b.send(prepare, ResponseKind.PREPARE, new PrepareOnBackend(b, ps, frame, then,
                    () -> onPrepared(node, ps, frame, then)));
        });
    }

    /**
     * The EXECUTE to send to {@code b}: the client's own packet, or — when it leaves out the
     * parameter types and that connection has not seen them — a copy with the types put back.
     */
    private static ByteBuf withParamTypes(ByteBuf frame, PreparedStatement ps, BackendConnection b) {
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
    private final class PrepareOnBackend extends DiscardingSink {
        private final BackendConnection backend;
        private final PreparedStatement ps;
        private final ByteBuf heldFrame;
        private final Then then;
        private int backendId = -1;
        private BackendException.ServerError error;

        /** Prepares it again, on whatever connection the session now has to that node. */
        private final Runnable again;

        PrepareOnBackend(BackendConnection backend, PreparedStatement ps, ByteBuf heldFrame, Then then,
                Runnable again) {
            super(background);
            this.backend = backend;
            this.ps = ps;
            this.heldFrame = heldFrame;
            this.then = then;
            this.again = again;
        }

        @Override
        public ResponseListener listener() {
            return new ResponseListener() {
                @Override
                public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
                    backendId = buf.getIntLE(payloadIndex + 1);
                }

                @Override
                public void onError(ByteBuf buf, int payloadIndex, int length) {
                    var err = ErrPacket.decode(buf.slice(payloadIndex, length));
                    error = new BackendException.ServerError(err.errorCode(), err.sqlState(), err.message());
                }
            };
        }

        @Override
        public void onComplete(BackendConnection b, ResponseTracker tracker) {
            if (backends.ready(backend.nodeId()) != backend && !command.sessionClosed()) {
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
            command.failed(e.code(), e.sqlState(), e.message());
        }

        /**
         * The connection failed before the client's command was sent on it: for the session, the
         * command failed there before any byte of its answer — a read is retried elsewhere.
         */
        @Override
        public void onFailure(BackendConnection b, Throwable cause) {
            heldFrame.release();
            command.failedOn(b, cause);
        }
    }
}
