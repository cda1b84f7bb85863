package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.*;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.Router;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.Statement;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;

/**
 * Dispatches each client command by its command byte to the handler that knows where it runs
 * and what its response looks like.
 */
final class Commands {

    private final ClientSession session;
    private final PreparedCommands prepared;
    private final ChangeUser changeUser;
    private final KillCommands kills;
    private final StatementCosts costs;

    Commands(ClientSession session) {
        this.session = session;
        this.costs = new StatementCosts(session);
        this.prepared = new PreparedCommands(session);
        this.changeUser = new ChangeUser(session);
        this.kills = new KillCommands(session);
    }

    void dispatch(int command, ByteBuf frame) {
        if (tooShort(command, frame)) {
            return;
        }
        if (!describedByStateTag(command)) {
            session.backends().forgetStates();
        }
        if (command == COM_QUERY) {
            costs.statement(frame, session.routing().clientCharset());
        } else if (command == COM_STMT_EXECUTE || command == COM_STMT_BULK_EXECUTE) {
            costs.execute(frame, session.routing().clientCharset());
        } else {
            costs.otherCommand();
        }
        switch (command) {
            case COM_QUIT -> {
                frame.release();
                session.close();
            }
            case COM_QUERY -> query(frame);
            case COM_INIT_DB -> initDb(frame);
            case COM_SET_OPTION -> setOption(frame);
            case COM_PING -> ping(frame);
            case COM_STMT_PREPARE -> prepared.prepare(frame);
            case COM_STMT_EXECUTE, COM_STMT_BULK_EXECUTE -> prepared.execute(frame);
            case COM_STMT_SEND_LONG_DATA -> prepared.sendLongData(frame);
            case COM_STMT_CLOSE -> prepared.close(frame);
            case COM_STMT_RESET -> prepared.reset(frame);
            case COM_STMT_FETCH -> prepared.fetch(frame);
            case COM_FIELD_LIST -> session.forward(primary(), frame, ResponseKind.FIELD_LIST, CommandListener.NONE);
            case COM_STATISTICS -> session.forward(primary(), frame, ResponseKind.STATISTICS, CommandListener.NONE);
            case COM_PROCESS_KILL -> kills.processKill(frame);
            case COM_REFRESH, COM_DEBUG, COM_SHUTDOWN ->
                    session.forward(primary(), frame, ResponseKind.SINGLE, CommandListener.NONE);
            case COM_PROCESS_INFO -> session.forward(primary(), frame, ResponseKind.RESULT, CommandListener.NONE);
            case COM_RESET_CONNECTION -> resetConnection(frame);
            case COM_CHANGE_USER -> changeUser.start(frame);
            default -> unsupported(command, frame);
        }
    }

    /**
     * Commands whose effect on a connection its state tag describes: statements (judged one by one,
     * see {@link Traceless}), the schema and the multi-statement option, a ping.
     */
    private static boolean describedByStateTag(int command) {
        return command == COM_QUERY || command == COM_INIT_DB || command == COM_SET_OPTION || command == COM_PING
                || command == COM_QUIT;
    }

    /** ErrorCodes.ER_MALFORMED_PACKET, as the server answers a binary-protocol command too short for its fixed part. */

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
    private boolean tooShort(int command, ByteBuf frame) {
        if (payloadLength(frame) >= fixedPart(command)) {
            return false;
        }
        frame.release();
        if (command != COM_STMT_CLOSE && command != COM_STMT_SEND_LONG_DATA) {
            session.replies().error(ErrorCodes.ER_MALFORMED_PACKET, "HY000", "Malformed communication packet");
        }
        return true;
    }

    /** The node for commands that are not statements (PING, STATISTICS …): the primary, or the session's first backend. */
    private NodeRef primary() {
        return session.firstNode().orElseGet(() -> session.proxy().primary().orElseThrow(
                () -> new IllegalStateException("no node to run the command on")));
    }

    private void query(ByteBuf frame) {
        Statement statement = classify(frame, session.routing().clientCharset());
        if (!kills.tryQuery(frame, statement, this::query)) {
            query(statement, frame);
        }
    }

    private void query(Statement classified, ByteBuf original) {
        Statement statement = classified;
        ByteBuf frame = original;
        if (OwnConnectionId.mayCall(statement)) {
            java.util.Optional<ByteBuf> own = OwnConnectionId.rewrite(session, frame);
            if (own.isPresent()) {
                original.release();
                frame = own.get();
                statement = classify(frame, session.routing().clientCharset());
            }
        }
        if (session.transactionPool() && !previousStatementAnswers(statement, frame)) {
            frame.release();
            return;
        }
        RouteDecision decision = Router.route(statement, session.routing(), session.endpoint().view(),
                session.endpoint());
        session.executor().run(RoutedCommand.text(statement, decision, frame, ResponseKind.RESULT,
                AccountChangeWatch.of(statement, frame, session.proxy().authenticator().accounts())));
    }

    /** The current command's answer from {@code backend} is complete (BEHAVIOUR §12: what it cost). */
    void answered(BackendConnection backend, ResponseTracker tracker) {
        costs.answered(backend.nodeId(), tracker);
    }

    /**
     * Transaction pool (BEHAVIOUR §7): the backend connection that ran the client's previous statement
     * may be serving another client now. {@code SELECT ROW_COUNT()} is answered from the client's
     * own last OK, a plain {@code SELECT FOUND_ROWS()} after a plain result set from its row count
     * (returns false: the command is done); a statement with SQL_CALC_FOUND_ROWS keeps
     * its connection for the FOUND_ROWS() that follows; {@code LAST_INSERT_ID(expr)} puts a value
     * on the connection that Sluice cannot read back, so the client keeps that connection.
     */
    private boolean previousStatementAnswers(Statement statement, ByteBuf frame) {
        if (statement.has(dev.sluice.routing.sql.StatementProperty.PREVIOUS_TARGET)) {
            java.util.Optional<String> rowCount = PreviousStatement.rowCountQuery(frame);
            if (rowCount.isPresent()) {
                session.executor().answerNumber(rowCount.get(), session.previous().rowCount());
                return false;
            }
            java.util.Optional<String> foundRows = PreviousStatement.foundRowsQuery(frame);
            if (foundRows.isPresent() && session.previous().foundRows() >= 0) {
                session.executor().answerNumber(foundRows.get(), session.previous().foundRows());
                return false;
            }
        }
        if (statement.kind().isRead() && PreviousStatement.calculatesFoundRows(frame)) {
            session.holdThroughNextStatement();
            session.previous().calculatesFoundRows();
        }
        if (statement.has(dev.sluice.routing.sql.StatementProperty.LAST_INSERT_ID)
                && PreviousStatement.setsLastInsertId(frame)) {
            session.lockToBackends();
        }
        return true;
    }

    /**
     * Classifies the SQL text of a COM_QUERY or COM_STMT_PREPARE packet (header included) in place,
     * written in {@code charset} (the connection's character_set_client).
     */
    static Statement classify(ByteBuf frame, ClientCharset charset) {
        int textStart = frame.readerIndex() + Packets.HEADER_SIZE + 1;
        int length = frame.writerIndex() - textStart;
        if (frame.hasArray()) {
            return SqlClassifier.classify(frame.array(), frame.arrayOffset() + textStart, length, charset);
        }
        byte[] text = SCRATCH.get();
        if (text.length < length) {
            text = new byte[Math.max(length, text.length * 2)];
            if (length <= MAX_SCRATCH) {
                SCRATCH.set(text);
            }
        }
        frame.getBytes(textStart, text, 0, length);
        return SqlClassifier.classify(text, 0, length, charset);
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

    private void ping(ByteBuf frame) {
        BackendConnection b = session.backends().all().stream().findFirst().orElse(null);
        if (b == null) {
            // Nothing to ask: Sluice itself is alive, which is what a ping asks.
            frame.release();
            session.replyOk();
            return;
        }
        session.forward(session.proxy().node(b.nodeId()).orElseThrow(), frame, ResponseKind.SINGLE,
                CommandListener.NONE);
    }

    /**
     * A session command: the client gets the answering node's (the primary's) answer; every other
     * open backend runs it too, so that all agree. A backend that refuses it is dropped.
     */
    private void everywhere(ByteBuf frame, ResponseKind kind, CommandListener listener) {
        NodeRef answering = primary();
        SessionCommandAgreement agreement = new SessionCommandAgreement(session);
        for (BackendConnection other : session.backends().all()) {
            if (other.nodeId() != answering.id()) {
                other.send(frame.retainedDuplicate(), kind, agreement.other());
            }
        }
        session.forward(answering, frame, kind, agreement.answering(listener));
    }

    private void initDb(ByteBuf frame) {
        String schema = frame.toString(frame.readerIndex() + Packets.HEADER_SIZE + 1,
                payloadLength(frame) - 1, session.routing().clientCharset().java());
        everywhere(frame, ResponseKind.SINGLE, new CommandListener() {
            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                if (!tracker.endedWithError()) {
                    session.routing().onSchemaChanged(schema);
                } else {
                    backend.stateUnknown(); // the error stays in the connection's diagnostics area
                }
            }
        });
    }

    /** COM_SET_OPTION (multi-statements on/off): kept to be replayed on backends opened later. */
    private void setOption(ByteBuf frame) {
        final int optionOffset = Packets.HEADER_SIZE + 1;
        int option = frame.getUnsignedShortLE(frame.readerIndex() + optionOffset);
        everywhere(frame, ResponseKind.SINGLE, new CommandListener() {
            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                if (!tracker.endedWithError()) {
                    multiStatementOption = option;
                } else {
                    backend.stateUnknown();
                }
            }
        });
    }

    private int multiStatementOption = SessionState.NO_OPTION;

    int multiStatementOption() {
        return multiStatementOption;
    }

    private void resetConnection(ByteBuf frame) {
        session.statements().clear();
        multiStatementOption = SessionState.NO_OPTION;
        session.resetRoutingState();
        everywhere(frame, ResponseKind.SINGLE, CommandListener.NONE);
    }

    static void keepAutocommit(ClientSession session, BackendConnection replica) {
        replica.send(InternalQuery.queryPacket(replica.channel().alloc().buffer(), SessionState.AUTOCOMMIT_ON),
                ResponseKind.RESULT, new SessionCommandSink(session));
    }

    private void unsupported(int command, ByteBuf frame) {
        frame.release();
        session.replies().error(ErrorCodes.ER_UNKNOWN_COM_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                "command " + Command.name(command) + " is not supported through Sluice; connect to the server "
                        + "directly for it");
    }

    static int payloadLength(ByteBuf frame) {
        return Packets.payloadLength(frame, frame.readerIndex());
    }

    /** Response of a session command on a non-primary backend: on error the backend leaves the session. */
    static final class SessionCommandSink extends DiscardingSink {
        /** The client's command this answers, judged against the answering backend's; null for Sluice's own. */
        private final SessionCommandAgreement agreement;

        /** The answer to a session command of Sluice's own: a backend that refuses it leaves. */
        SessionCommandSink(ClientSession session) {
            this(session, null);
        }

        SessionCommandSink(ClientSession session, SessionCommandAgreement agreement) {
            super(session);
            this.agreement = agreement;
        }

        @Override
        public void onComplete(BackendConnection backend, ResponseTracker tracker) {
            if (agreement != null) {
                agreement.otherAnswered(backend, tracker.endedWithError());
            } else if (tracker.endedWithError()) {
                session().dropNode(backend);
            }
            // The backend may belong to a node being drained or removed that was too busy to leave before.
            session().sessionCommandAnswered();
        }
    }

    /**
     * The answer to Sluice's own request that a backend track GTIDs again, sent after a client's
     * {@code SET session_track_system_variables}. Nothing to read; once it is in, the connection
     * may go back to a transaction pool.
     */
    static final class RetrackSink extends DiscardingSink {
        RetrackSink(ClientSession session) {
            super(session);
        }

        @Override
        public void onComplete(BackendConnection backend, ResponseTracker tracker) {
            session().sessionCommandAnswered();
        }
    }
}
