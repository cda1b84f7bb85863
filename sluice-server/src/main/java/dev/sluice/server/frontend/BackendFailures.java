package dev.sluice.server.frontend;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.Router;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.pool.PoolWaitTimeoutException;
import dev.sluice.server.runtime.NodeRef;
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

    private final ClientSession session;
    private final ReadRetries retries;

    BackendFailures(ClientSession session, ReadRetries retries) {
        this.session = session;
        this.retries = retries;
    }

    /** The backend running the current command failed, {@code bytesForwarded} of its answer sent. */
    void duringCommand(BackendConnection backend, Throwable cause, long bytesForwarded) {
        if (session.isClosed()) {
            return;
        }
        session.backends().remove(backend);
        CommandListener done = session.endRequest();
        boolean midResponse = bytesForwarded > 0 || session.streamsUploadTo(backend);
        ReadRetry again = midResponse ? null : retries.takeIfRanOn(backend.nodeId());
        if (again != null) {
            session.commandDone();
            session.proxy().suspect(backend.nodeId(), cause.getMessage());
            done.onFailure(backend, cause);
            retryRead(again);
            return;
        }
        retries.release();
        if (midResponse || (session.routing().inTransaction() && isPrimary(backend.nodeId()))) {
            LOG.info("session {}: backend {} failed {}; closing the client connection", session.connectionId(),
                    backend.nodeName(), midResponse ? "mid-response" : "inside a transaction");
            session.close();
            return;
        }
        session.commandDone();
        done.onFailure(backend, cause);
        session.commandFailed(ErrorCodes.CR_SERVER_LOST, ErrorCodes.SQLSTATE_GENERAL, "Lost connection to backend '"
                + backend.nodeName() + "' during query; the statement may or may not have run. Retry it");
    }

    /**
     * A backend was lost while the client's command was not running on it (the server closed it
     * between two commands — KILL, restart, wait_timeout —, it failed under one of Sluice's own
     * requests, or it was found dead when next needed). Its prepared statements went with it, and
     * no id of theirs can reach the connection that replaces it (see {@link PreparedStatement}).
     * An open transaction went with it too: going on with a new connection would commit the rest
     * of it as if it were whole, so the client loses its connection, as it would going direct.
     */
    void betweenCommands(BackendConnection backend) {
        if (session.isClosed()) {
            return;
        }
        if (isPrimary(backend.nodeId()) && (session.routing().inTransaction()
                || ServerStatus.has(session.serverStatus(), ServerStatus.IN_TRANS))) {
            LOG.info("session {}: backend {} closed inside a transaction; closing the client connection",
                    session.connectionId(), backend.nodeName());
            session.close();
        }
    }

    /**
     * A backend failed one of the session's session commands: it leaves the session (BEHAVIOUR §3), and
     * the session's later reads go to the nodes whose state still matches.
     */
    void failedSessionCommand(BackendConnection backend) {
        session.backends().remove(backend);
        if (!isPrimary(backend.nodeId())) {
            session.routing().leave(backend.nodeId());
            LOG.debug("session {}: node {} failed a session command and left the session", session.connectionId(),
                    backend.nodeName());
        }
    }

    /** A connection to {@code node} could not be opened for the current command. */
    void couldNotOpen(NodeRef node, Throwable cause) {
        ReadRetry again = retries.takeIfRanOn(node.id());
        if (again != null) {
            // A read's replica could not be opened (down, or it refused the session's state): the
            // read goes elsewhere and the client sees no error.
            session.commandDone();
            if (cause instanceof BackendException be && be.serverError().isPresent()) {
                session.routing().leave(node.id());
            } else if (!(cause instanceof PoolWaitTimeoutException)) {
                session.proxy().suspect(node.id(), String.valueOf(cause.getMessage()));
            }
            retryRead(again);
            return;
        }
        if (cause instanceof BackendException be && be.serverError().isPresent()) {
            BackendException.ServerError e = be.serverError().get();
            session.commandFailed(e.code(), e.sqlState(), e.message());
        } else {
            // The node cannot be reached (a write to a primary that just died): new sessions and
            // reads stop counting on it now, not at the monitor's next check, which runs at once.
            // A node whose pool is merely full is not down.
            if (!(cause instanceof PoolWaitTimeoutException)) {
                session.proxy().suspect(node.id(), String.valueOf(cause.getMessage()));
            }
            session.commandFailed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL, "backend '" + node.name()
                    + "' is unavailable: " + cause.getMessage());
        }
    }

    /** Routes a failed read again, now that its replica is known to be down. */
    private void retryRead(ReadRetry r) {
        if (r.resend() != null) {
            r.resend().accept(r.command().frame());
            return;
        }
        RoutedCommand read = r.command();
        RouteDecision d = Router.route(read.statement(), session.routing(), session.endpoint().view(),
                session.endpoint());
        LOG.debug("session {}: read failed on node {}, routed again: {}", session.connectionId(), r.nodeId(), d);
        session.executor().run(read.routedAs(d));
    }

    private boolean isPrimary(int nodeId) {
        return session.endpoint().view().topology().primary().map(Node::id).orElse(-1) == nodeId;
    }
}
