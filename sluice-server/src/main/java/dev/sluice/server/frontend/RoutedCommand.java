package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.sql.Statement;
import io.netty.buffer.ByteBuf;

/**
 * One client command on its way to a backend: what it is, where routing sends it, its bytes, the
 * answer it expects and who listens for that answer. The parts travel together from the routing
 * decision to the send, through a consistency wait, a deferred BEGIN or a retry on another node.
 *
 * @param statement the command's classification
 * @param decision where routing sends it (replaced as the command is routed again)
 * @param frame the client's whole command packet; whoever ends the command's path releases it
 * @param kind the answer the command expects
 * @param own the command's own listener, told when its answer is complete
 * @param binding what adapts the packet to the node chosen (a prepared statement's id), or null
 *     for a text command
 */
record RoutedCommand(Statement statement, RouteDecision decision, ByteBuf frame, ResponseKind kind,
        CommandListener own, Binding binding) {

    /** A text-protocol command. */
    static RoutedCommand text(Statement statement, RouteDecision decision, ByteBuf frame, ResponseKind kind,
            CommandListener own) {
        return new RoutedCommand(statement, decision, frame, kind, own, null);
    }

    /** The same command, routed again. */
    RoutedCommand routedAs(RouteDecision newDecision) {
        return new RoutedCommand(statement, newDecision, frame, kind, own, binding);
    }

    /** The same command with another listener of its own. */
    RoutedCommand listenedBy(CommandListener listener) {
        return new RoutedCommand(statement, decision, frame, kind, listener, binding);
    }

    boolean binary() {
        return binding != null;
    }

    /** Drops the command's bytes: it ends here (answered locally, refused, or the session closed). */
    void release() {
        frame.release();
    }
}
