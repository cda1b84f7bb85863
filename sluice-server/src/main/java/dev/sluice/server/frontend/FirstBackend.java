package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.routing.RouteError;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.pool.PoolWaitTimeoutException;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.Channel;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The last step of a client's login: the session's node (on a read-only endpoint, the replica it
 * keeps for its life, BEHAVIOUR §1) and its first backend connection, opened as the client's
 * account (through the endpoint's pool, if it has one). The login completes once a backend
 * accepted it, or at once when the pool's node accepted this very login a moment ago; a server's
 * refusal reaches the client as the server worded it.
 *
 * <p>When that node cannot be reached (the primary just died and the monitor has not seen it
 * yet), a read-write session is not refused: the node is reported to the monitor, which takes it
 * out at once, and the session starts on the node chosen next — a readable replica — so reads
 * keep working (BEHAVIOUR §4). Before that, a connection the kernel failed at once (refused or
 * reset while connecting) is tried once more on the same node: under heavy connection churn a
 * loopback connect can fail so, transiently, and the client would otherwise be refused for
 * nothing. A timeout or a server's refusal is not retried.
 */
final class FirstBackend {
    /** How the login ends. */
    interface Login {
        void loggedIn();

        void refused(int code, String sqlState, String message);
    }

    private final Channel client;
    private final RoutingSession routing;
    private final EndpointRuntime endpoint;
    private final NodeDirectory nodes;
    private final BooleanSupplier primaryHeld;
    private final SessionBackends backends;
    private final Runnable live;

    /**
     * @param primaryHeld whether a switchover holds the primary (see {@link FirstNode#forLogin})
     * @param live makes the session live, once its login is complete
     */
    FirstBackend(Channel client, RoutingSession routing, EndpointRuntime endpoint, NodeDirectory nodes,
            BooleanSupplier primaryHeld, SessionBackends backends, Runnable live) {
        this.client = client;
        this.routing = routing;
        this.endpoint = endpoint;
        this.nodes = nodes;
        this.primaryHeld = primaryHeld;
        this.backends = backends;
        this.live = live;
    }

    /** Gives a read-only endpoint's session its replica; the error to refuse the login with when none can take it. */
    Optional<RouteError> takeConnectionReplica() {
        return endpoint.config().isReadOnly()
                ? ReadOnlyEndpoint.assignReplica(routing, endpoint.view(), endpoint.name())
                : Optional.empty();
    }

    /** Ends the login as said above: the session goes live before {@code login} hears it. */
    void open(Login login) {
        Optional<RouteError> noReplica = takeConnectionReplica();
        if (noReplica.isPresent()) {
            RouteError e = noReplica.get();
            login.refused(e.errorCode(), e.sqlState(), e.message());
            return;
        }
        Optional<NodeRef> target = FirstNode.forLogin(endpoint, routing, nodes, primaryHeld.getAsBoolean());
        if (target.isEmpty()) {
            login.refused(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                    "no backend available for endpoint '" + endpoint.name() + "'");
            return;
        }
        if (backends.loginVouchedFor(target.get())) {
            // The pool's node accepted this very login a moment ago: the first statement opens
            // (or takes) the connection it needs.
            loggedIn(login);
            return;
        }
        open(target.get(), true, true, login);
    }

    private void loggedIn(Login login) {
        live.run();
        login.loggedIn();
    }

    private void open(NodeRef first, boolean mayTryAnother, boolean mayRetrySame, Login login) {
        backends.open(first).addListener(f -> {
            if (!f.isSuccess() && mayRetrySame && client.isActive() && failedWhileConnecting(f.cause())) {
                open(first, mayTryAnother, false, login);
                return;
            }
            if (!client.isActive()) {
                backends.closeAll(false);
                return;
            }
            if (f.isSuccess()) {
                loggedIn(login);
                return;
            }
            Throwable cause = f.cause();
            boolean serverRefused = cause instanceof BackendException be && be.serverError().isPresent();
            boolean nodeBusy = cause instanceof PoolWaitTimeoutException;
            if (!serverRefused && !nodeBusy && mayTryAnother && !endpoint.config().isReadOnly()) {
                nodes.suspect(first.id(), String.valueOf(cause.getMessage()));
                Optional<NodeRef> next = FirstNode.of(endpoint, routing, nodes);
                if (next.isPresent() && next.get().id() != first.id()) {
                    open(next.get(), false, true, login);
                    return;
                }
            }
            backends.closeAll(false);
            if (serverRefused) {
                BackendException.ServerError e = ((BackendException) cause).serverError().get();
                login.refused(e.code(), e.sqlState(), e.message());
            } else {
                login.refused(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                        "no backend available for endpoint '" + endpoint.name() + "': " + cause.getMessage());
            }
        });
    }

    private static boolean failedWhileConnecting(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof io.netty.channel.ConnectTimeoutException) {
                return false;
            }
            if (t instanceof java.net.ConnectException) {
                return true;
            }
        }
        return false;
    }
}
