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
import dev.sluice.server.replay.TransactionLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

/**
 * Records, on an endpoint with {@code transaction-replay}, what the session's primary runs of an
 * open transaction (BEHAVIOUR §10): each command sent to the primary is watched on its way back
 * to the client ({@link #around}), and its text and the checksum of its answer go to the
 * {@link TransactionLog}, which keeps them while the answers say a transaction is open. Only text
 * statements are replayed; any other command that may change data in a transaction makes it not
 * replayable. A session on an endpoint without replay has no recording at all, so forwarding
 * answers costs the same as before.
 *
 * <p>Confined to the session's event loop.
 */
final class TransactionRecording {
    private final TransactionLog log;
    private final IntPredicate isPrimary;
    private final Supplier<String> stateTag;
    /** The session's state when the transaction started (see {@link #stateChanged()}). */
    private String tagAtStart;

    /**
     * @param isPrimary whether a node id is the primary's now
     * @param stateTag the session's state (schema, session commands) as one comparable string
     */
    TransactionRecording(long maxSize, IntPredicate isPrimary, Supplier<String> stateTag) {
        this.log = new TransactionLog(maxSize);
        this.isPrimary = isPrimary;
        this.stateTag = stateTag;
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
                return new Watched(leg, null, "a statement of 16 MB or more ran in it", null);
            }
            return new Watched(leg, ByteBufUtil.getBytes(frame, start, length),
                    null, new AnswerChecksum(Capabilities.has(backend.capabilities(), Capabilities.CLIENT_DEPRECATE_EOF)));
        }
        if (leavesDataAlone(command)) {
            return leg;
        }
        return new Watched(leg, null, "a " + Command.name(command) + " ran in it (text statements only are replayed)",
                null);
    }

    /** Commands that change nothing a transaction holds (a statement prepared again on a new connection). */
    private static boolean leavesDataAlone(int command) {
        return command == COM_PING || command == COM_STATISTICS || command == COM_STMT_PREPARE
                || command == COM_STMT_CLOSE || command == COM_STMT_RESET || command == COM_FIELD_LIST;
    }

    private void answered(byte[] payload, long checksum, int status) {
        boolean wasOpen = log.open();
        log.answered(payload, checksum, inTransaction(status));
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
        private final byte[] payload;
        private String unreplayable;
        private final AnswerChecksum checksum;

        Watched(ResponseSink leg, byte[] payload, String unreplayable, AnswerChecksum checksum) {
            this.leg = leg;
            this.payload = payload;
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
                answered(payload, checksum.value(), tracker.lastStatus());
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
}
