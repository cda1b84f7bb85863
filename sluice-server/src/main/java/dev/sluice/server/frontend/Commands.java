package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.*;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Dispatches each client command by its command byte to the handler that knows where it runs
 * and what its response looks like.
 */
final class Commands {
    /** COM_STMT_BULK_EXECUTE (MariaDB): like EXECUTE, for arrays of parameters. */
    static final int COM_STMT_BULK_EXECUTE = 0xFA;

    private final ClientSession session;
    private final PreparedCommands prepared;
    private final ChangeUser changeUser;

    Commands(ClientSession session) {
        this.session = session;
        this.prepared = new PreparedCommands(session);
        this.changeUser = new ChangeUser(session);
    }

    void dispatch(int command, ByteBuf frame) {
        switch (command) {
            case COM_QUIT -> {
                frame.release();
                session.close();
            }
            case COM_QUERY -> query(frame);
            case COM_INIT_DB, COM_SET_OPTION -> everywhere(frame, command == COM_SET_OPTION
                    ? ResponseKind.SINGLE : ResponseKind.SINGLE);
            case COM_PING -> ping(frame);
            case COM_STMT_PREPARE -> prepared.prepare(frame);
            case COM_STMT_EXECUTE, COM_STMT_BULK_EXECUTE -> prepared.execute(frame);
            case COM_STMT_SEND_LONG_DATA -> prepared.sendLongData(frame);
            case COM_STMT_CLOSE -> prepared.close(frame);
            case COM_STMT_RESET -> prepared.reset(frame);
            case COM_STMT_FETCH -> prepared.fetch(frame);
            case COM_FIELD_LIST -> session.forward(primary(), frame, ResponseKind.FIELD_LIST, CommandListener.NONE);
            case COM_STATISTICS -> session.forward(primary(), frame, ResponseKind.STATISTICS, CommandListener.NONE);
            case COM_PROCESS_KILL, COM_REFRESH, COM_DEBUG, COM_SHUTDOWN ->
                    session.forward(primary(), frame, ResponseKind.SINGLE, CommandListener.NONE);
            case COM_PROCESS_INFO -> session.forward(primary(), frame, ResponseKind.RESULT, CommandListener.NONE);
            case COM_RESET_CONNECTION -> resetConnection(frame);
            case COM_CHANGE_USER -> changeUser.start(frame);
            default -> unsupported(command, frame);
        }
    }

    private NodeRef primary() {
        return session.proxy().primary();
    }

    private void query(ByteBuf frame) {
        session.forward(primary(), frame, ResponseKind.RESULT, CommandListener.NONE);
    }

    private void ping(ByteBuf frame) {
        BackendConnection b = session.backends().ready(primary().id());
        if (b == null) {
            // Nothing to ask: Sluice itself is alive, which is what a ping asks.
            frame.release();
            session.replyOk();
            return;
        }
        session.forward(primary(), frame, ResponseKind.SINGLE, CommandListener.NONE);
    }

    /**
     * A session command: the client gets the primary's answer; every other open backend runs it
     * too, so that all agree. A backend that refuses it is dropped from the session.
     */
    private void everywhere(ByteBuf frame, ResponseKind kind) {
        NodeRef primary = primary();
        for (BackendConnection other : session.backends().all()) {
            if (other.nodeId() != primary.id()) {
                other.send(frame.retainedDuplicate(), kind, new SessionCommandSink(session));
            }
        }
        session.forward(primary, frame, kind, CommandListener.NONE);
    }

    private void resetConnection(ByteBuf frame) {
        session.statements().clear();
        everywhere(frame, ResponseKind.SINGLE);
    }

    /** What a newly opened backend replays; grows with routing (USE, SET …). */
    List<ReplayCommand> replayCommands() {
        return new ArrayList<>();
    }

    private void unsupported(int command, ByteBuf frame) {
        frame.release();
        session.replyError(ErrorCodes.ER_UNKNOWN_COM_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                "command " + Command.name(command) + " (0x" + Integer.toHexString(command)
                        + ") is not supported through Sluice; connect to the server directly for it");
    }

    static int payloadLength(ByteBuf frame) {
        return Packets.payloadLength(frame, frame.readerIndex());
    }

    /** Response of a session command on a non-primary backend: on error the backend leaves the session. */
    static final class SessionCommandSink extends DiscardingSink {
        SessionCommandSink(ClientSession session) {
            super(session);
        }

        @Override
        public void onComplete(BackendConnection backend, ResponseTracker tracker) {
            if (tracker.endedWithError()) {
                session().backends().remove(backend);
            }
        }
    }
}
