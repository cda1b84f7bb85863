package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.*;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Command;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseListener;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import dev.sluice.server.replay.AnswerChecksum;
import dev.sluice.server.replay.ExecutePayload;
import dev.sluice.server.replay.RecordedCommand;
import dev.sluice.server.replay.TransactionLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

/**
 * Records, on an endpoint with {@code transaction-replay}, what the session's primary runs of an
 * open transaction (BEHAVIOUR §10): each command sent to the primary is watched on its way back
 * to the client ({@link #around}), and its text and the checksum of its answer go to the
 * {@link TransactionLog}, which keeps them while the answers say a transaction is open. Text
 * statements and prepared statements' executions are replayed — an execution under the statement
 * id the client knows, found back from the backend's id through the session's
 * {@link PreparedStatements}, with its parameters and the long data sent for it; any other command
 * that may change data in a transaction makes it not replayable, and so does an execution that
 * opens a cursor (its rows come with COM_STMT_FETCH, on the connection that was lost). A session on
 * an endpoint without replay has no recording at all, so forwarding answers costs the same as
 * before.
 *
 * <p>Confined to the session's event loop.
 */
final class TransactionRecording {
    private static final String TEXT_AND_EXECUTIONS_ONLY =
            "text statements and prepared statements' executions only are replayed";

    private final long maxSize;
    private final TransactionLog log;
    private final IntPredicate isPrimary;
    private final Supplier<String> stateTag;
    private final PreparedStatements statements;
    /** Long data sent to the primary for a statement's next execution, by client statement id. */
    private final Map<Integer, LongData> longData = new HashMap<>();
    /** The session's state when the transaction started (see {@link #stateChanged()}). */
    private String tagAtStart;

    /**
     * @param isPrimary whether a node id is the primary's now
     * @param stateTag the session's state (schema, session commands) as one comparable string
     * @param statements the session's prepared statements, by the ids the client knows
     */
    TransactionRecording(long maxSize, IntPredicate isPrimary, Supplier<String> stateTag,
            PreparedStatements statements) {
        this.maxSize = maxSize;
        this.log = new TransactionLog(maxSize);
        this.isPrimary = isPrimary;
        this.stateTag = stateTag;
        this.statements = statements;
    }

    TransactionLog log() {
        return log;
    }

    /**
     * Whether the session's state changed since the transaction started (a SET or USE inside it):
     * a new connection takes on the state as it is now, and the earlier statements ran in another.
     */
    boolean stateChanged() {
        return tagAtStart == null || !tagAtStart.equals(stateTag.get());
    }

    /**
     * The sink to send the client's command {@code frame} to {@code backend} with: {@code leg}
     * itself, or {@code leg} watched for the log when the backend is the primary's.
     */
    ResponseSink around(BackendConnection backend, ByteBuf frame, ResponseSink leg) {
        if (!isPrimary.test(backend.nodeId())) {
            return leg;
        }
        int start = frame.readerIndex() + Packets.HEADER_SIZE;
        int length = Packets.payloadLength(frame, frame.readerIndex());
        int command = frame.getUnsignedByte(start);
        if (command == COM_QUERY) {
            if (length == Packets.MAX_PAYLOAD) {
                return unreplayable(leg, "a statement of 16 MB or more ran in it");
            }
            return new Watched(leg, new RecordedCommand.Text(ByteBufUtil.getBytes(frame, start, length)), null,
                    checksumFor(backend));
        }
        if (command == COM_STMT_EXECUTE) {
            return execution(backend, frame, start, length, leg);
        }
        if (command == COM_STMT_RESET) {
            // The server drops the long data sent for the statement: so does the record.
            statements.heldAs(backend, frame.getIntLE(start + ExecutePayload.STATEMENT_ID_OFFSET))
                    .ifPresent(ps -> longData.remove(ps.clientId()));
        }
        if (leavesDataAlone(command)) {
            return leg;
        }
        return unreplayable(leg, "a " + Command.name(command) + " ran in it (" + TEXT_AND_EXECUTIONS_ONLY + ")");
    }

    /**
     * A COM_STMT_SEND_LONG_DATA is on its way to {@code backend} (it has no answer): kept for the
     * statement's next execution if the backend is the primary's.
     */
    void longDataSent(BackendConnection backend, ByteBuf frame) {
        if (!isPrimary.test(backend.nodeId())) {
            return;
        }
        int start = frame.readerIndex() + Packets.HEADER_SIZE;
        int length = Packets.payloadLength(frame, frame.readerIndex());
        Optional<PreparedStatement> found =
                statements.heldAs(backend, frame.getIntLE(start + ExecutePayload.STATEMENT_ID_OFFSET));
        if (found.isEmpty()) {
            return;
        }
        int clientId = found.get().clientId();
        LongData sent = longData.get(clientId);
        if (sent == null || sent.connectionSerial != backend.serial()) {
            // Long data lives on one connection: what went to a lost one is not this execution's.
            sent = new LongData(backend.serial());
            longData.put(clientId, sent);
        }
        if (sent.tooLarge) {
            return;
        }
        if (length == Packets.MAX_PAYLOAD || sent.size + length > maxSize) {
            sent.tooLarge();
        } else {
            sent.add(ExecutePayload.withStatementId(ByteBufUtil.getBytes(frame, start, length), clientId));
        }
    }

    /** An EXECUTE sent to the primary, recorded under the client's statement id. */
    private ResponseSink execution(BackendConnection backend, ByteBuf frame, int start, int length,
            ResponseSink leg) {
        Optional<PreparedStatement> found =
                statements.heldAs(backend, frame.getIntLE(start + ExecutePayload.STATEMENT_ID_OFFSET));
        if (!longData.isEmpty()) {
            // Long data of statements closed before they ran is of no use.
            longData.keySet().removeIf(id -> statements.get(id).isEmpty());
        }
        if (found.isEmpty()) {
            return unreplayable(leg, "Sluice could not tell which of the session's prepared statements ran in it");
        }
        PreparedStatement ps = found.get();
        LongData sent = longData.remove(ps.clientId());
        if (sent != null && sent.connectionSerial != backend.serial()) {
            sent = null;
        }
        if (length == Packets.MAX_PAYLOAD) {
            return unreplayable(leg, "a statement of 16 MB or more ran in it");
        }
        if (ExecutePayload.opensCursor(frame.getUnsignedByte(start + ExecutePayload.flagsOffset()))) {
            return unreplayable(leg, "a prepared statement opened a cursor in it (rows fetched with COM_STMT_FETCH "
                    + "are not replayed)");
        }
        if (sent != null && sent.tooLarge) {
            return unreplayable(leg, "the long data sent for one of its prepared statements passed "
                    + "transaction-replay-max-size (" + maxSize + " bytes)");
        }
        byte[] execute = ExecutePayload.forReplay(ByteBufUtil.getBytes(frame, start, length), ps.clientId(),
                ps.paramCount(), ps.paramTypes());
        RecordedCommand.Execution run = new RecordedCommand.Execution(ps.clientId(), ps.prepareFrame(), execute,
                sent == null ? List.of() : sent.chunks);
        return new Watched(leg, run, null, checksumFor(backend));
    }

    private ResponseSink unreplayable(ResponseSink leg, String reason) {
        return new Watched(leg, null, reason, null);
    }

    private static AnswerChecksum checksumFor(BackendConnection backend) {
        return new AnswerChecksum(Capabilities.has(backend.capabilities(), Capabilities.CLIENT_DEPRECATE_EOF));
    }

    /**
     * Commands that change nothing a transaction holds: a statement is prepared again on a new
     * connection, and a RESET only drops long data and a cursor (neither is replayed).
     */
    private static boolean leavesDataAlone(int command) {
        return command == COM_PING || command == COM_STATISTICS || command == COM_STMT_PREPARE
                || command == COM_STMT_CLOSE || command == COM_STMT_RESET || command == COM_FIELD_LIST;
    }

    private void answered(RecordedCommand command, long checksum, int status) {
        boolean wasOpen = log.open();
        log.answered(command, checksum, inTransaction(status));
        startedNow(wasOpen);
    }

    private void answeredUnreplayable(String reason, int status) {
        boolean wasOpen = log.open();
        log.answeredUnreplayable(reason, inTransaction(status));
        startedNow(wasOpen);
    }

    private void startedNow(boolean wasOpen) {
        if (!log.open()) {
            tagAtStart = null;
        } else if (!wasOpen) {
            tagAtStart = stateTag.get();
        }
    }

    /** The answer's IN_TRANS flag; an ERR (no flags) leaves the transaction as it was. */
    private boolean inTransaction(int status) {
        return status < 0 ? log.open() : (status & ServerStatus.IN_TRANS) != 0;
    }

    /** One command's answer on its way to the client, read for the log as it passes. */
    private final class Watched implements ResponseSink {
        private final ResponseSink leg;
        private final RecordedCommand command;
        private String unreplayable;
        private final AnswerChecksum checksum;

        Watched(ResponseSink leg, RecordedCommand command, String unreplayable, AnswerChecksum checksum) {
            this.leg = leg;
            this.command = command;
            this.unreplayable = unreplayable;
            this.checksum = checksum;
        }

        @Override
        public void onBytes(ByteBuf bytes) {
            if (unreplayable == null) {
                if (bytes.hasArray()) {
                    checksum.update(bytes.array(), bytes.arrayOffset() + bytes.readerIndex(), bytes.readableBytes());
                } else {
                    byte[] copy = ByteBufUtil.getBytes(bytes);
                    checksum.update(copy, 0, copy.length);
                }
            }
            leg.onBytes(bytes);
        }

        @Override
        public void onComplete(BackendConnection backend, ResponseTracker tracker) {
            if (tracker.isLocalInfileRequest()) {
                // The rest of the answer follows the client's file, on this same sink.
                unreplayable = "LOAD DATA LOCAL INFILE ran in it";
            } else if (unreplayable != null) {
                answeredUnreplayable(unreplayable, tracker.lastStatus());
            } else if (!checksum.complete()) {
                answeredUnreplayable("Sluice could not read the answer to one of its statements",
                        tracker.lastStatus());
            } else {
                answered(command, checksum.value(), tracker.lastStatus());
            }
            leg.onComplete(backend, tracker);
        }

        @Override
        public void onFailure(BackendConnection backend, Throwable cause) {
            answeredUnreplayable("the answer to one of its statements never came", -1);
            leg.onFailure(backend, cause);
        }

        @Override
        public ResponseListener listener() {
            return leg.listener();
        }

        @Override
        public boolean stripsSessionState() {
            return leg.stripsSessionState();
        }

        @Override
        public void onReadBatchComplete() {
            leg.onReadBatchComplete();
        }
    }

    /** The long data sent for one statement since its last execution. */
    private static final class LongData {
        /** The connection it was sent on: the server keeps it there, and drops it with it. */
        private final long connectionSerial;
        private final List<byte[]> chunks = new ArrayList<>();
        private long size;
        private boolean tooLarge;

        LongData(long connectionSerial) {
            this.connectionSerial = connectionSerial;
        }

        void add(byte[] chunk) {
            chunks.add(chunk);
            size += chunk.length;
        }

        /** Past the limit: its execution will not be replayable, and the data is not kept. */
        void tooLarge() {
            tooLarge = true;
            chunks.clear();
            size = 0;
        }
    }
}
