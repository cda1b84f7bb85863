package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.pool.PoolWaitTimeoutException;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.Channel;
import java.util.Optional;

/**
 * The last step of a client's login: the session's first backend connection, opened as the
 * client's account (through the endpoint's pool, if it has one). The login completes once a
 * backend accepted it; a server's refusal reaches the client as the server worded it.
 *
 * <p>When that node cannot be reached (the primary just died and the monitor has not seen it
 * yet), a read-write session is not refused: the node is reported to the monitor, which takes it
 * out at once, and the session starts on the node chosen next — a readable replica — so reads
 * keep working (BEHAVIOUR §4). Before that, a connection the kernel failed at once (refused or
 * reset while connecting, which epoll reports as NotYetConnectedException) is tried once more on
 * the same node: under heavy connection churn a loopback connect can fail so, transiently, and the
 * client would otherwise be refused for nothing. A timeout or a server's refusal is not retried.
 */
final class FirstBackend {
    /** How the login ends. */
    interface Login {
        void loggedIn();

        void refused(int code, String sqlState, String message);
    }

    private final Channel client;
    private final ClientSession session;
    private final NodeDirectory nodes;
    private final boolean readOnlyEndpoint;
    private final String endpointName;
    private final Login login;

    FirstBackend(Channel client, ClientSession session, NodeDirectory nodes, boolean readOnlyEndpoint,
            String endpointName, Login login) {
        this.client = client;
        this.session = session;
        this.nodes = nodes;
        this.readOnlyEndpoint = readOnlyEndpoint;
        this.endpointName = endpointName;
        this.login = login;
    }

    /** Opens the first backend on {@code first}, or, as said above, on the node chosen next. */
    void open(NodeRef first) {
        open(first, true, true);
    }

    private void open(NodeRef first, boolean mayTryAnother, boolean mayRetrySame) {
        session.openFirstBackend(first).addListener(f -> {
            if (!f.isSuccess() && mayRetrySame && client.isActive() && failedWhileConnecting(f.cause())) {
                open(first, mayTryAnother, false);
                return;
            }
            if (!client.isActive()) {
                session.dropBackends();
                return;
            }
            if (f.isSuccess()) {
                login.loggedIn();
                return;
            }
            Throwable cause = f.cause();
            boolean serverRefused = cause instanceof BackendException be && be.serverError().isPresent();
            boolean nodeBusy = cause instanceof PoolWaitTimeoutException;
            if (!serverRefused && !nodeBusy && mayTryAnother && !readOnlyEndpoint) {
                nodes.suspect(first.id(), String.valueOf(cause.getMessage()));
                Optional<NodeRef> next = session.firstNode();
                if (next.isPresent() && next.get().id() != first.id()) {
                    open(next.get(), false, true);
                    return;
                }
            }
            session.dropBackends();
            if (serverRefused) {
                BackendException.ServerError e = ((BackendException) cause).serverError().get();
                login.refused(e.code(), e.sqlState(), e.message());
            } else {
                login.refused(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                        "no backend available for endpoint '" + endpointName + "': " + cause.getMessage());
            }
        });
    }

    private static boolean failedWhileConnecting(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof io.netty.channel.ConnectTimeoutException) {
                return false;
            }
            if (t instanceof java.nio.channels.NotYetConnectedException || t instanceof java.net.ConnectException) {
                return true;
            }
        }
        return false;
    }
}
