package dev.sluice.server.frontend;

import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteError;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.consistency.ConsistentReads;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import java.util.function.Consumer;

/** What a session's consistent reads ({@link ConsistentReads}) do with its commands. */
final class ConsistentReadSession implements ConsistentReads.Session<RoutedCommand> {
    private final ClientSession session;

    ConsistentReadSession(ClientSession session) {
        this.session = session;
    }

    @Override
    public EventLoop loop() {
        return session.client().eventLoop();
    }

    @Override
    public boolean closed() {
        return session.isClosed();
    }

    @Override
    public void hold(RoutedCommand command) {
        session.holdCommand();
    }

    @Override
    public void withBackend(NodeRef node, RoutedCommand command, Consumer<BackendConnection> action) {
        session.withBackend(node, command.frame(), action);
    }

    @Override
    public void leave(BackendConnection hung) {
        session.backends().remove(hung);
    }

    @Override
    public void runOn(RoutedCommand command, NodeRef replica) {
        session.executor().sendToReplica(command, replica);
    }

    @Override
    public void routeAt(RoutedCommand command, GtidPosition primaryPosition) {
        RouteDecision next = Router.routeAtPrimaryPosition(command.statement(), session.routing(),
                session.endpoint().view(), session.endpoint(), primaryPosition);
        session.executor().run(command.routedAs(next));
    }

    @Override
    public void readPrimary(RoutedCommand command) {
        session.executor().toPrimary(command.routedAs(RouteDecision.primary(RouteReason.CONSISTENCY_TIMEOUT)));
    }

    @Override
    public void refuse(RoutedCommand command) {
        command.release();
        RouteError e = RouteError.consistencyTimeout();
        session.commandFailed(e.errorCode(), e.sqlState(), e.message());
    }

    @Override
    public void drop(RoutedCommand command) {
        command.release();
    }
}
