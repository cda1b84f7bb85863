package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.routing.EndpointView;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.pool.PoolWaitTimeoutException;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a session does when one of its backends fails (BEHAVIOUR §4): a read that had not started to
 * answer is routed again and the client sees no error; a failure mid-answer or inside a
 * transaction on the primary ends the client connection, as going direct would; otherwise the
 * client gets an error that says the statement may or may not have run, and the session goes on.
 */
final class BackendFailures {
    private static final Logger LOG = LoggerFactory.getLogger(BackendFailures.class);

    private final long connectionId;
    private final ReadRetries retries;
    private final SessionBackends backends;
    private final RoutingSession routing;
    private final ClientStatus status;
    private final Supplier<EndpointView> view;
    private final NodeDirectory nodes;
    private final LostTransaction lostTransaction = new LostTransaction();

    BackendFailures(long connectionId, ReadRetries retries, SessionBackends backends, RoutingSession routing,
            ClientStatus status, Supplier<EndpointView> view, NodeDirectory nodes) {
        this.connectionId = connectionId;
        this.retries = retries;
        this.backends = backends;
        this.routing = routing;
        this.status = status;
        this.view = view;
        this.nodes = nodes;
    }

    /**
     * The backend running {@code command} failed, its request already ended; {@code midResponse}
     * when bytes of its answer reached the client or the client's upload went to it.
     */
    void duringCommand(CurrentCommand command, BackendConnection backend, Throwable cause, boolean midResponse,
            CommandListener listener) {
        ReadRetry again = midResponse ? null : retries.takeIfRanOn(backend.nodeId());
        if (again != null) {
            command.done();
            nodes.suspect(backend.nodeId(), cause.getMessage());
            listener.onFailure(backend, cause);
            again.retry();
            return;
        }
        retries.release();
        if (midResponse) {
            LOG.info("session {}: backend {} failed mid-response; closing the client connection", connectionId,
                    backend.nodeName());
            command.closeSession();
            return;
        }
        boolean primary = isPrimary(backend.nodeId());
        if (routing.inTransaction() && primary) {
            // Closed without an error packet: an ERR written here may follow part of the answer already
            // on its way to the client, which then reads a malformed packet instead of a lost
            // connection. A transaction lost between two statements is told why at its next one
            // (LostTransaction).
            LOG.info("session {}: the primary {} failed under a statement of a transaction; closing the client "
                    + "connection", connectionId, backend.nodeName());
            command.closeSession();
            return;
        }
        command.done();
        listener.onFailure(backend, cause);
        command.failed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL, primary
                ? "Lost connection to the primary '" + backend.nodeName() + "' during query; the statement may or "
                        + "may not have run, and Sluice does not send it again (if the primary is gone, a failover "
                        + "moves writes to a replica): check whether it took effect before you retry it"
                : "Lost connection to backend '" + backend.nodeName() + "' during query; the statement may or may "
                        + "not have run. Retry it");
    }

    /**
     * A backend was lost while the client's command was not running on it (the server closed it
     * between two commands — KILL, restart, wait_timeout —, it failed under one of Sluice's own
     * requests, or it was found dead when next needed). Its prepared statements went with it, and
     * no id of theirs can reach the connection that replaces it (see {@link PreparedStatement}).
     * An open transaction went with it too: going on with a new connection would commit the rest
     * of it as if it were whole, so the client loses its connection, as it would going direct.
     */
    void betweenCommands(CurrentCommand command, BackendConnection backend) {
        if (command.sessionClosed()) {
            return;
        }
        if (isPrimary(backend.nodeId()) && (routing.inTransaction() || status.inTransaction())) {
            LOG.info("session {}: backend {} closed inside a transaction; the client connection ends at its next "
                    + "command", connectionId, backend.nodeName());
            lostTransaction.lostOn(backend.nodeName());
        }
    }

    /**
     * The primary {@code nodeId} failed and a failover replaces it: every connection there is
     * dropped. An idle one inside a transaction makes the transaction lost, as if the server had
     * closed it; one still owing an answer fails that command ({@link #duringCommand}). A primary
     * that is only frozen (or cut off) would otherwise keep the session's transaction, and its
     * next statement would go on with the new primary as if the transaction were whole.
     */
    void primaryFailed(int nodeId) {
        for (BackendConnection b : java.util.List.copyOf(backends.all())) {
            if (b.nodeId() != nodeId) {
                continue;
            }
            if (b.pendingResponses() == 0) {
                if (routing.inTransaction() || status.inTransaction()) {
                    lostTransaction.lostOn(b.nodeName());
                }
                backends.remove(b);
            } else {
                b.close();
            }
        }
    }

    /** The transaction lost between two commands ({@link #betweenCommands}), if any. */
    LostTransaction lostTransaction() {
        return lostTransaction;
    }

    /**
     * A backend failed one of the session's session commands: it leaves the session (BEHAVIOUR §3), and
     * the session's later reads go to the nodes whose state still matches.
     */
    void failedSessionCommand(BackendConnection backend) {
        backends.remove(backend);
        if (!isPrimary(backend.nodeId())) {
            routing.leave(backend.nodeId());
            LOG.debug("session {}: node {} failed a session command and left the session", connectionId,
                    backend.nodeName());
        }
    }

    /** A connection to {@code node} could not be opened for {@code command}. */
    void couldNotOpen(CurrentCommand command, NodeRef node, Throwable cause) {
        ReadRetry again = retries.takeIfRanOn(node.id());
        if (again != null) {
            // A read's replica could not be opened (down, or it refused the session's state): the
            // read goes elsewhere and the client sees no error.
            command.done();
            if (cause instanceof BackendException be && be.serverError().isPresent()) {
                routing.leave(node.id());
            } else if (!(cause instanceof PoolWaitTimeoutException)) {
                nodes.suspect(node.id(), String.valueOf(cause.getMessage()));
            }
            again.retry();
            return;
        }
        if (cause instanceof BackendException be && be.serverError().isPresent()) {
            BackendException.ServerError e = be.serverError().get();
            command.failed(e.code(), e.sqlState(), e.message());
        } else {
            // The node cannot be reached (a write to a primary that just died): new sessions and
            // reads stop counting on it now, not at the monitor's next check, which runs at once.
            // A node whose pool is merely full is not down.
            if (!(cause instanceof PoolWaitTimeoutException)) {
                nodes.suspect(node.id(), String.valueOf(cause.getMessage()));
            }
            command.failed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL, "backend '" + node.name()
                    + "' is unavailable: " + cause.getMessage());
        }
    }

    private boolean isPrimary(int nodeId) {
        return view.get().topology().primary().map(Node::id).orElse(-1) == nodeId;
    }
}
