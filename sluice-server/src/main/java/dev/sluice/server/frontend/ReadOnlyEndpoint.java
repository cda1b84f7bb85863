package dev.sluice.server.frontend;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteError;
import dev.sluice.routing.Router;
import dev.sluice.routing.session.RoutingSession;
import java.util.Optional;

/**
 * A read-only endpoint's sessions (BEHAVIOUR §1): each is given one replica at login and keeps it
 * for its whole life; routing sends it nothing else, and refuses its writes with the endpoint's
 * error. A login no replica can take is refused.
 */
final class ReadOnlyEndpoint {
    private ReadOnlyEndpoint() {
    }

    /** Gives {@code routing}'s session the replica routing picks; the error to refuse the login with when none. */
    static Optional<RouteError> assignReplica(RoutingSession routing, EndpointView view, String endpointName) {
        RouteDecision mapped = Router.connect(routing, view);
        if (mapped instanceof RouteDecision.ToReplica replica) {
            routing.assignConnectionReplica(replica.nodeId());
            return Optional.empty();
        }
        return Optional.of(mapped instanceof RouteDecision.Reject r ? r.error() : RouteError.noReplica(endpointName));
    }
}
