package dev.sluice.server.switchover;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One connection of the switchover's own to a node, as Sluice's account, for its administrative
 * statements. Blocking: the switchover runs on a thread of its own, one step after the other, and
 * each statement is bounded by a timeout. Statements run one at a time (no multi-statements).
 */
final class NodeAdmin implements AutoCloseable {
    private final NodeRef node;
    private final BackendConnection connection;
    private final EventLoop loop;

    private NodeAdmin(NodeRef node, BackendConnection connection, EventLoop loop) {
        this.node = node;
        this.connection = connection;
        this.loop = loop;
    }

    static NodeAdmin open(BackendConnector connector, EventLoop loop, NodeRef node, LoginRequest login,
            Duration timeout) {
        CompletableFuture<BackendConnection> opened = new CompletableFuture<>();
        connector.connect(loop, node.name(), node.id(), node.address(), login).addListener(f -> {
            if (f.isSuccess()) {
                opened.complete((BackendConnection) f.getNow());
            } else {
                opened.completeExceptionally(f.cause());
            }
        });
        try {
            return new NodeAdmin(node, opened.get(timeout.toMillis(), TimeUnit.MILLISECONDS), loop);
        } catch (ExecutionException e) {
            throw new SwitchoverException("cannot connect to '" + node.name() + "' (" + node.address() + "): "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            opened.thenAccept(BackendConnection::close);
            throw new SwitchoverException("cannot connect to '" + node.name() + "' (" + node.address()
                    + "): no answer within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchoverException("interrupted while connecting to '" + node.name() + "'", e);
        }
    }

    NodeRef node() {
        return node;
    }

    /** The node's thread id of this connection (what its PROCESSLIST shows). */
    long threadId() {
        return connection.serverConnectionId();
    }

    /** Runs {@code sql} and returns its result; the server's error throws. */
    QueryResult query(String sql, Duration timeout) {
        QueryResult r = result(sql, timeout);
        if (r.isError()) {
            throw new SwitchoverException(node.name() + " refused " + shown(sql) + ": " + r.error().get().message());
        }
        return r;
    }

    /** Runs {@code sql}, an error included in its result. */
    QueryResult result(String sql, Duration timeout) {
        CompletableFuture<QueryResult> answer = new CompletableFuture<>();
        loop.execute(() -> InternalQuery.run(connection, sql).whenComplete((r, e) -> {
            if (e != null) {
                answer.completeExceptionally(e);
            } else {
                answer.complete(r);
            }
        }));
        try {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new SwitchoverException("lost the connection to '" + node.name() + "' during " + shown(sql) + ": "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            close();
            throw new SwitchoverException("'" + node.name() + "' did not answer " + shown(sql) + " within "
                    + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchoverException("interrupted during " + shown(sql) + " on '" + node.name() + "'", e);
        }
    }

    /** The statement as a message shows it: a password never appears in a message or a log. */
    static String shown(String sql) {
        return sql.replaceAll("(?i)(MASTER_PASSWORD\\s*=\\s*)'(?:[^'\\\\]|\\\\.|'')*'", "$1'…'");
    }

    @Override
    public void close() {
        connection.close();
    }
}
