package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.function.Supplier;

/**
 * The protocol's session commands — COM_INIT_DB, COM_SET_OPTION, COM_RESET_CONNECTION — which
 * change a connection's state rather than read or write data. Each runs on every open backend of
 * the session so that all agree (BEHAVIOUR §3): the client gets the answering node's answer, a
 * backend that refuses what it accepted leaves ({@link SessionCommandAgreement}). What succeeded is
 * kept in the session's state, for backends opened later.
 */
final class SessionCommands {
    private final CurrentCommand command;
    private final BackgroundAnswers background;
    private final SessionBackends backends;
    private final RoutingSession routing;
    private final SessionBackendState state;
    private final SessionRestart restart;
    private final Supplier<NodeRef> answering;

    /** @param answering the node whose answer the client gets: the primary, or the session's first node */
    SessionCommands(CurrentCommand command, BackgroundAnswers background, SessionBackends backends,
            RoutingSession routing, SessionBackendState state, SessionRestart restart, Supplier<NodeRef> answering) {
        this.command = command;
        this.background = background;
        this.backends = backends;
        this.routing = routing;
        this.state = state;
        this.restart = restart;
        this.answering = answering;
    }

    void initDb(CommandFrame f) {
        ByteBuf frame = f.bytes();
        String schema = frame.toString(frame.readerIndex() + Packets.HEADER_SIZE + 1,
                Packets.payloadLength(frame, frame.readerIndex()) - 1, routing.clientCharset().java());
        everywhere(f, new WhenAccepted() {
            @Override
            void accepted() {
                routing.onSchemaChanged(schema);
            }
        });
    }

    /** COM_SET_OPTION (multi-statements on/off): kept to be replayed on backends opened later. */
    void setOption(CommandFrame f) {
        final int optionOffset = Packets.HEADER_SIZE + 1;
        int option = f.bytes().getUnsignedShortLE(f.bytes().readerIndex() + optionOffset);
        everywhere(f, new WhenAccepted() {
            @Override
            void accepted() {
                state.multiStatementOption(option);
            }
        });
    }

    void resetConnection(CommandFrame f) {
        state.multiStatementOption(SessionState.NO_OPTION);
        restart.startOver();
        everywhere(f, CommandListener.NONE);
    }

    private void everywhere(CommandFrame f, CommandListener listener) {
        NodeRef node = answering.get();
        ByteBuf frame = f.take();
        SessionCommandAgreement agreement = SessionCommandAgreement.sendToOthers(background, backends, node.id(),
                frame, ResponseKind.SINGLE, other -> { });
        command.forward(node, frame, ResponseKind.SINGLE, agreement.answering(listener));
    }

    /**
     * Keeps a session command's effect once the answering backend accepted it. A refusal leaves
     * the session as it was, but its error stays in that connection's diagnostics area, so the
     * connection's state is no longer the one its tag says.
     */
    private abstract static class WhenAccepted implements CommandListener {
        abstract void accepted();

        @Override
        public void onComplete(BackendConnection backend, ResponseTracker tracker) {
            if (!tracker.endedWithError()) {
                accepted();
            } else {
                backend.stateUnknown();
            }
        }
    }
}
