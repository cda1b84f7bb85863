package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.*;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.routing.sql.FoundRows;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.Statement;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Dispatches each client command by its command byte to the handler that knows where it runs
 * and what its response looks like.
 */
final class Commands {
    private final CurrentCommand command;
    private final LocalAnswers answers;
    private final SessionBackends backends;
    private final NodeDirectory nodes;
    private final Supplier<NodeRef> primary;
    private final Queries queries;
    private final PreparedCommands prepared;
    private final SessionCommands sessionCommands;
    private final ChangeUser changeUser;
    private final KillCommands kills;
    private final LostTransaction lostTransaction;
    /** Null on an endpoint without {@code transaction-replay}. */
    private final TransactionReplay replay;

    /** @param primary the node for commands that are not statements: see {@link #primaryOf} */
    Commands(CurrentCommand command, LocalAnswers answers, SessionBackends backends, NodeDirectory nodes,
            Supplier<NodeRef> primary, Queries queries, PreparedCommands prepared, SessionCommands sessionCommands,
            ChangeUser changeUser, KillCommands kills, LostTransaction lostTransaction, TransactionReplay replay) {
        this.lostTransaction = lostTransaction;
        this.replay = replay;
        this.command = command;
        this.answers = answers;
        this.backends = backends;
        this.nodes = nodes;
        this.primary = primary;
        this.queries = queries;
        this.prepared = prepared;
        this.sessionCommands = sessionCommands;
        this.changeUser = changeUser;
        this.kills = kills;
    }

    /** Runs the client's command {@code command}; its packet is the session's until a handler takes it. */
    void dispatch(int command, CommandFrame frame) {
        if (tooShort(command, frame)) {
            return;
        }
        if (replay != null) {
            replay.findLostPrimaryConnection();
        }
        if (lostTransaction.pending() && command != COM_QUIT) {
            if (replay == null) {
                frame.release();
                this.command.failAndClose(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                        lostTransaction.message());
            } else {
                replayThen(command, frame.take());
            }
            return;
        }
        if (!describedByStateTag(command)) {
            backends.forgetStates();
        }
        switch (command) {
            case COM_QUIT -> {
                frame.release();
                this.command.closeSession();
            }
            case COM_QUERY -> queries.query(frame);
            case COM_INIT_DB -> sessionCommands.initDb(frame);
            case COM_SET_OPTION -> sessionCommands.setOption(frame);
            case COM_PING -> ping(frame);
            case COM_STMT_PREPARE -> prepared.prepare(frame);
            case COM_STMT_EXECUTE, COM_STMT_BULK_EXECUTE -> prepared.execute(frame);
            case COM_STMT_SEND_LONG_DATA -> prepared.sendLongData(frame);
            case COM_STMT_CLOSE -> prepared.close(frame);
            case COM_STMT_RESET -> prepared.reset(frame);
            case COM_STMT_FETCH -> prepared.fetch(frame);
            case COM_FIELD_LIST -> toPrimary(frame, ResponseKind.FIELD_LIST);
            case COM_STATISTICS -> toPrimary(frame, ResponseKind.STATISTICS);
            case COM_PROCESS_KILL -> kills.processKill(frame);
            case COM_REFRESH, COM_DEBUG, COM_SHUTDOWN -> toPrimary(frame, ResponseKind.SINGLE);
            case COM_PROCESS_INFO -> toPrimary(frame, ResponseKind.RESULT);
            case COM_RESET_CONNECTION -> sessionCommands.resetConnection(frame);
            case COM_CHANGE_USER -> changeUser.start(frame);
            default -> unsupported(command, frame);
        }
    }

    /**
     * The transaction lost with the primary's connection is replayed first (BEHAVIOUR §10); the
     * client's command {@code packet} runs once it was, else the client gets the error.
     */
    private void replayThen(int command, ByteBuf packet) {
        this.command.hold();
        String node = lostTransaction.node();
        replay.run(() -> {
            lostTransaction.replayed();
            CommandFrame frame = new CommandFrame(packet);
            // The command starts as if just taken from the queue: one Sluice answers itself, or one
            // without an answer (COM_STMT_CLOSE), leaves the session idle and the queue moving,
            // rather than running forever.
            this.command.done();
            try {
                dispatch(command, frame);
            } catch (RuntimeException e) {
                frame.releaseUntaken();
                this.command.failAndClose(ErrorCodes.ER_UNKNOWN_ERROR, "HY000",
                        "Sluice could not process this command: " + e);
            }
            this.command.resume();
        }, why -> {
            packet.release();
            this.command.failAndClose(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                    LostTransaction.message(node, why));
        }, packet::release);
    }

    private void toPrimary(CommandFrame frame, ResponseKind kind) {
        NodeRef node = primary.get();
        command.forward(node, frame.take(), kind, CommandListener.NONE);
    }

    /**
     * The node for commands that are not statements (PING, STATISTICS …): the session's first
     * node, or the primary.
     *
     * @throws IllegalStateException when there is neither: the command cannot run anywhere
     */
    static NodeRef primaryOf(Optional<NodeRef> firstNode, NodeDirectory nodes) {
        return firstNode.orElseGet(() -> nodes.primary().orElseThrow(
                () -> new IllegalStateException("no node to run the command on")));
    }

    /**
     * Commands whose effect on a connection its state tag describes: statements (judged one by one,
     * see {@link Traceless}), the schema and the multi-statement option, a ping.
     */
    private static boolean describedByStateTag(int command) {
        return command == COM_QUERY || command == COM_INIT_DB || command == COM_SET_OPTION || command == COM_PING
                || command == COM_QUIT;
    }

    /**
     * The fixed part (command byte included) of the commands whose fields Sluice reads at fixed
     * offsets. A shorter packet (garbage, or a client bug) must not be read past its end: the
     * exception would leave the frame unreleased and the session waiting for ever.
     */
    private static int fixedPart(int command) {
        return switch (command) {
            case COM_STMT_EXECUTE -> 10; // id(4) flags(1) iteration count(4)
            case COM_STMT_BULK_EXECUTE, COM_STMT_SEND_LONG_DATA -> 7; // id(4) flags or parameter(2)
            case COM_STMT_FETCH -> 9; // id(4) rows(4)
            case COM_STMT_CLOSE, COM_STMT_RESET, COM_PROCESS_KILL -> 5; // id(4)
            case COM_SET_OPTION -> 3; // option(2)
            default -> 1;
        };
    }

    /**
     * True (and the packet answered) when it is shorter than its command's fixed part. Like the
     * server: CLOSE and SEND_LONG_DATA, which have no response, are dropped silently; the others
     * get "Malformed communication packet".
     */
    private boolean tooShort(int command, CommandFrame frame) {
        if (payloadLength(frame.bytes()) >= fixedPart(command)) {
            return false;
        }
        frame.release();
        if (command != COM_STMT_CLOSE && command != COM_STMT_SEND_LONG_DATA) {
            answers.error(ErrorCodes.ER_MALFORMED_PACKET, "HY000", "Malformed communication packet");
        }
        return true;
    }

    /**
     * Classifies the SQL text of a COM_QUERY or COM_STMT_PREPARE packet (header included) in place,
     * written in {@code charset} (the connection's character_set_client).
     */
    static Statement classify(ByteBuf frame, ClientCharset charset) {
        int length = textLength(frame);
        if (frame.hasArray()) {
            return SqlClassifier.classify(frame.array(), frame.arrayOffset() + textStart(frame), length, charset);
        }
        return SqlClassifier.classify(copiedText(frame), 0, length, charset);
    }

    /** {@link FoundRows#offsetOf} of a COM_QUERY's text (header included), read in place as {@link #classify}. */
    static long foundRowsOffset(ByteBuf frame, ClientCharset charset) {
        int length = textLength(frame);
        if (frame.hasArray()) {
            return FoundRows.offsetOf(frame.array(), frame.arrayOffset() + textStart(frame), length, charset);
        }
        return FoundRows.offsetOf(copiedText(frame), 0, length, charset);
    }

    private static int textStart(ByteBuf frame) {
        return frame.readerIndex() + Packets.HEADER_SIZE + 1;
    }

    private static int textLength(ByteBuf frame) {
        return frame.writerIndex() - textStart(frame);
    }

    /** The text of a frame held in direct memory, copied to the start of this thread's scratch buffer. */
    private static byte[] copiedText(ByteBuf frame) {
        int length = textLength(frame);
        byte[] text = SCRATCH.get();
        if (text.length < length) {
            text = new byte[Math.max(length, text.length * 2)];
            if (length <= MAX_SCRATCH) {
                SCRATCH.set(text);
            }
        }
        frame.getBytes(textStart(frame), text, 0, length);
        return text;
    }

    /** Per-thread copy buffer for statement text held in direct memory. */
    private static final io.netty.util.concurrent.FastThreadLocal<byte[]> SCRATCH =
            new io.netty.util.concurrent.FastThreadLocal<>() {
                @Override
                protected byte[] initialValue() {
                    return new byte[INITIAL_SCRATCH];
                }
            };
    private static final int INITIAL_SCRATCH = 4096;
    /** Texts longer than this are classified from a one-off copy instead of growing the shared buffer. */
    private static final int MAX_SCRATCH = 1 << 20;

    private void ping(CommandFrame frame) {
        BackendConnection b = backends.all().stream().findFirst().orElse(null);
        if (b == null) {
            // Nothing to ask: Sluice itself is alive, which is what a ping asks.
            frame.release();
            answers.ok();
            return;
        }
        NodeRef node = nodes.node(b.nodeId()).orElseThrow();
        command.forward(node, frame.take(), ResponseKind.SINGLE, CommandListener.NONE);
    }

    private void unsupported(int command, CommandFrame frame) {
        frame.release();
        answers.error(ErrorCodes.ER_UNKNOWN_COM_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                "command " + Command.name(command) + " is not supported through Sluice; connect to the server "
                        + "directly for it");
    }

    static int payloadLength(ByteBuf frame) {
        return Packets.payloadLength(frame, frame.readerIndex());
    }
}
