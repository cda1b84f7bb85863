package dev.sluice.server.frontend;

import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteError;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.consistency.ConsistentReads;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import java.util.function.Consumer;

/** What a session's consistent reads ({@link ConsistentReads}) do with its commands. */
final class ConsistentReadSession implements ConsistentReads.Session<RoutedCommand> {
    private final EventLoop loop;
    private final CurrentCommand current;
    private final SessionBackends backends;
    private final RouteExecutor executor;
    private final ReadRerouting rerouting;
    private final RoutingSession routing;
    private final EndpointRuntime endpoint;

    ConsistentReadSession(EventLoop loop, CurrentCommand current, SessionBackends backends, RouteExecutor executor,
            ReadRerouting rerouting, RoutingSession routing, EndpointRuntime endpoint) {
        this.loop = loop;
        this.current = current;
        this.backends = backends;
        this.executor = executor;
        this.rerouting = rerouting;
        this.routing = routing;
        this.endpoint = endpoint;
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public boolean closed() {
        return current.sessionClosed();
    }

    @Override
    public void hold(RoutedCommand command) {
        current.hold();
    }

    @Override
    public void withBackend(NodeRef node, RoutedCommand command, Consumer<BackendConnection> action) {
        if (backends.ready(node.id()) != null) {
            current.withBackend(node, command.frame(), action);
            return;
        }
        rerouting.keepWhileOpening(command, node.id());
        current.withBackend(node, command.frame(), b -> {
            rerouting.openedForWait();
            action.accept(b);
        });
    }

    @Override
    public void leave(BackendConnection hung) {
        backends.remove(hung);
    }

    @Override
    public void runOn(RoutedCommand command, NodeRef replica) {
        executor.sendToReplica(command, replica);
    }

    @Override
    public void routeAt(RoutedCommand command, GtidPosition primaryPosition) {
        RouteDecision next = Router.routeAtPrimaryPosition(command.statement(), routing,
                endpoint.view(), endpoint, primaryPosition);
        executor.run(command.routedAs(next));
    }

    @Override
    public void readPrimary(RoutedCommand command) {
        executor.toPrimary(command.routedAs(RouteDecision.primary(RouteReason.CONSISTENCY_TIMEOUT)));
    }

    @Override
    public void refuse(RoutedCommand command) {
        command.release();
        RouteError e = RouteError.consistencyTimeout();
        current.failed(e.errorCode(), e.sqlState(), e.message());
    }

    @Override
    public void drop(RoutedCommand command) {
        command.release();
    }
}
