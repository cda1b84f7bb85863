package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Command;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseListener;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import dev.sluice.server.replay.AnswerChecksum;
import dev.sluice.server.replay.ExecutePayload;
import dev.sluice.server.replay.RecordedCommand;
import dev.sluice.server.replay.TransactionLog;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.BooleanSupplier;

/**
 * The recorded statements of a lost transaction sent, one at a time, to one new connection to the
 * primary (BEHAVIOUR §10), each answer kept from the client and checked against the checksum of
 * the one it got. A prepared statement's execution runs under the statement's id on that
 * connection: a statement the session still holds is prepared there through its own mapping
 * ({@link PreparedStatement#preparedOn}), so that the client's next executions find it; one the
 * client closed since is prepared for the replay only and closed once the replay is through.
 *
 * <pre>
 *   text ─────────────────────────────────────────────▶ send ─▶ answer checked ─▶ next
 *   execution ─ prepared on this connection? ─ no ─▶ PREPARE ─┘ (long data, then the EXECUTE)
 * </pre>
 *
 * <p>Confined to the session's event loop.
 */
final class ReplayRun {
    /** How much of a statement the error quotes. */
    private static final int QUOTED = 60;
    private static final int CLOSE_PAYLOAD = 5;

    /** Where the run ends. */
    interface Outcome {
        void replayed(String node, int statements);

        void differed(String why);

        void failed(String why);

        void abandoned();
    }

    private final BackendConnection backend;
    private final NodeRef node;
    private final List<TransactionLog.Entry> entries;
    private final PreparedStatements statements;
    private final ByteBufAllocator alloc;
    private final BooleanSupplier sessionClosed;
    private final Outcome outcome;
    /** Statements the client closed since they ran: their ids on this connection, by client id. */
    private final Map<Integer, Integer> replayOnly = new HashMap<>();
    private int at;

    ReplayRun(BackendConnection backend, NodeRef node, List<TransactionLog.Entry> entries,
            PreparedStatements statements, ByteBufAllocator alloc, BooleanSupplier sessionClosed, Outcome outcome) {
        this.backend = backend;
        this.node = node;
        this.entries = entries;
        this.statements = statements;
        this.alloc = alloc;
        this.sessionClosed = sessionClosed;
        this.outcome = outcome;
    }

    void next() {
        if (at == entries.size()) {
            closeReplayOnly();
            outcome.replayed(node.name(), entries.size());
            return;
        }
        TransactionLog.Entry entry = entries.get(at);
        if (entry.command() instanceof RecordedCommand.Text text) {
            send(packet(text.payload()), entry);
        } else if (entry.command() instanceof RecordedCommand.Execution execution) {
            OptionalInt id = idHere(execution);
            if (id.isPresent()) {
                execute(execution, id.getAsInt(), entry);
            } else {
                ByteBuf prepare = alloc.buffer(execution.prepareFrame().length).writeBytes(execution.prepareFrame());
                backend.send(prepare, ResponseKind.PREPARE, new Prepared(execution, entry));
            }
        }
    }

    /** The statement the execution ran, as the session holds it now: empty once the client closed it. */
    private Optional<PreparedStatement> held(RecordedCommand.Execution execution) {
        return statements.get(execution.clientStatementId())
                .filter(ps -> ps.prepareFrame() == execution.prepareFrame());
    }

    /** The statement's id on this connection, if it was prepared here already. */
    private OptionalInt idHere(RecordedCommand.Execution execution) {
        Optional<PreparedStatement> ps = held(execution);
        if (ps.isPresent()) {
            return ps.get().idOn(backend);
        }
        Integer id = replayOnly.get(execution.clientStatementId());
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /** The long data sent for the execution, then the execution itself, under the statement's id here. */
    private void execute(RecordedCommand.Execution execution, int statementId, TransactionLog.Entry entry) {
        for (byte[] chunk : execution.longData()) {
            backend.write(withStatementId(packet(chunk), statementId), false);
        }
        send(withStatementId(packet(execution.execute()), statementId), entry);
    }

    private void send(ByteBuf packet, TransactionLog.Entry entry) {
        boolean deprecateEof = Capabilities.has(backend.capabilities(), Capabilities.CLIENT_DEPRECATE_EOF);
        backend.send(packet, ResponseKind.RESULT, new Answer(entry, new AnswerChecksum(deprecateEof)));
    }

    private ByteBuf packet(byte[] payload) {
        ByteBuf packet = alloc.buffer(Packets.HEADER_SIZE + payload.length);
        return packet.writeMediumLE(payload.length).writeByte(0).writeBytes(payload);
    }

    private static ByteBuf withStatementId(ByteBuf packet, int statementId) {
        return packet.setIntLE(packet.readerIndex() + Packets.HEADER_SIZE + ExecutePayload.STATEMENT_ID_OFFSET,
                statementId);
    }

    private void closeReplayOnly() {
        for (int id : replayOnly.values()) {
            ByteBuf close = alloc.buffer(Packets.HEADER_SIZE + CLOSE_PAYLOAD);
            close.writeMediumLE(CLOSE_PAYLOAD).writeByte(0).writeByte(Command.COM_STMT_CLOSE).writeIntLE(id);
            backend.write(close, true);
        }
        replayOnly.clear();
    }

    /** "2 of 3 (INSERT INTO t …)" */
    private String statement() {
        String text = entries.get(at).command().text().replaceAll("\\s+", " ").strip();
        String quoted = text.length() > QUOTED ? text.substring(0, QUOTED) + " …" : text;
        return (at + 1) + " of " + entries.size() + " (" + quoted + ")";
    }

    /** Whether the session ended meanwhile, the outcome then told so: nothing is left to replay for. */
    private boolean abandoned() {
        if (sessionClosed.getAsBoolean()) {
            outcome.abandoned();
            return true;
        }
        return false;
    }

    private void failedUnder(Throwable cause) {
        if (!abandoned()) {
            outcome.failed("the connection to the primary '" + node.name() + "' failed under statement "
                    + statement() + ": " + cause.getMessage());
        }
    }

    /** The answer to preparing an execution's statement on this connection. */
    private final class Prepared implements ResponseSink {
        private final RecordedCommand.Execution execution;
        private final TransactionLog.Entry entry;
        private int statementId = -1;
        private String error;

        Prepared(RecordedCommand.Execution execution, TransactionLog.Entry entry) {
            this.execution = execution;
            this.entry = entry;
        }

        @Override
        public ResponseListener listener() {
            return new ResponseListener() {
                @Override
                public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
                    statementId = buf.getIntLE(payloadIndex + ExecutePayload.STATEMENT_ID_OFFSET);
                }

                @Override
                public void onError(ByteBuf buf, int payloadIndex, int length) {
                    error = ErrPacket.decode(buf.slice(payloadIndex, length)).message();
                }
            };
        }

        @Override
        public void onBytes(ByteBuf bytes) {
            bytes.release();
        }

        @Override
        public void onComplete(BackendConnection b, ResponseTracker tracker) {
            if (abandoned()) {
                return;
            }
            if (error != null || statementId < 0) {
                outcome.failed("statement " + statement() + " could not be prepared on the primary '" + node.name()
                        + "'" + (error == null ? "" : ": " + error));
                return;
            }
            Optional<PreparedStatement> ps = held(execution);
            if (ps.isPresent()) {
                ps.get().preparedOn(backend, statementId);
            } else {
                replayOnly.put(execution.clientStatementId(), statementId);
            }
            execute(execution, statementId, entry);
        }

        @Override
        public void onFailure(BackendConnection b, Throwable cause) {
            failedUnder(cause);
        }
    }

    /** One replayed statement's answer: checked, never forwarded. */
    private final class Answer implements ResponseSink {
        private final TransactionLog.Entry entry;
        private final AnswerChecksum checksum;

        Answer(TransactionLog.Entry entry, AnswerChecksum checksum) {
            this.entry = entry;
            this.checksum = checksum;
        }

        @Override
        public void onBytes(ByteBuf bytes) {
            try {
                byte[] copy = ByteBufUtil.getBytes(bytes);
                checksum.update(copy, 0, copy.length);
            } finally {
                bytes.release();
            }
        }

        @Override
        public void onComplete(BackendConnection b, ResponseTracker tracker) {
            if (abandoned()) {
                return;
            }
            int status = tracker.lastStatus();
            if (!checksum.complete() || tracker.isLocalInfileRequest()) {
                outcome.failed("Sluice could not read the answer to statement " + statement());
            } else if (checksum.value() != entry.checksum()) {
                outcome.differed("the answer to statement " + statement() + " is not the one the client got");
            } else if (status >= 0 && (status & ServerStatus.IN_TRANS) == 0) {
                outcome.differed("statement " + statement() + " left no transaction open");
            } else {
                at++;
                next();
            }
        }

        @Override
        public void onFailure(BackendConnection b, Throwable cause) {
            failedUnder(cause);
        }
    }
}
