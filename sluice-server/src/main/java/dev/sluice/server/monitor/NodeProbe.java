package dev.sluice.server.monitor;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.net.HostPort;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Checks one node, over one long-lived monitor connection, whenever {@link #tick()} is called.
 * A check that does not answer within its timeout is missed and its connection dropped — a hung
 * server (SIGSTOP) is detected as surely as a dead one. The node is unreachable once it has missed
 * {@code down-after} checks in a row; a missed check short of that is tried again at once rather
 * than at the next tick, so that a node really gone is down within {@code down-after} check
 * timeouts, not {@code down-after} intervals. Confined to one event loop.
 */
final class NodeProbe {
    interface Results {
        void observed(NodeProbe probe, NodeObservation observation);

        /** A check was missed, but not yet enough of them in a row to mark the node down. */
        void missed(NodeProbe probe, String reason, int inRow, int downAfter);

        void unreachable(NodeProbe probe, String reason);

        /** A check's timeout ran late because Sluice's own loop was held up: it gets more time. */
        void stalled(NodeProbe probe, long lateMillis, long moreMillis);
    }

    private final String nodeName;
    private final int nodeId;
    private final HostPort address;
    private final EventLoop loop;
    private final BackendConnector connector;
    private final LoginRequest login;
    private final Duration queryTimeout;
    private final Duration connectTimeout;
    private final Results results;
    private final MissedChecks misses;
    private BackendConnection connection;
    private boolean checking;
    private int generation;
    private boolean closed;

    NodeProbe(String nodeName, int nodeId, HostPort address, EventLoop loop, BackendConnector connector,
            LoginRequest login, Duration connectTimeout, Duration queryTimeout, int downAfter, Results results) {
        this.nodeName = nodeName;
        this.nodeId = nodeId;
        this.address = address;
        this.loop = loop;
        this.connector = connector;
        this.login = login;
        this.queryTimeout = queryTimeout;
        this.connectTimeout = connectTimeout;
        this.results = results;
        this.misses = new MissedChecks(downAfter);
    }

    String nodeName() {
        return nodeName;
    }

    HostPort address() {
        return address;
    }

    /** Starts a check unless one is still running (its own timeout ends it). Call on any thread. */
    void tick() {
        loop.execute(this::startCheck);
    }

    private void startCheck() {
        if (closed || checking) {
            return;
        }
        checking = true;
        int gen = ++generation;
        boolean connected = connection != null && connection.isUsable();
        // A new connection first has to connect and log in: that gets its own allowance.
        long limit = queryTimeout.toMillis() + (connected ? 0 : connectTimeout.toMillis());
        armTimeout(gen, CheckDeadline.start(loop.ticker().nanoTime(), limit));
        if (connected) {
            runChecks(gen, connection);
            return;
        }
        connector.connect(loop, nodeName, nodeId, address, login).addListener(f -> {
            if (gen != generation || closed) {
                if (f.isSuccess()) {
                    ((BackendConnection) f.getNow()).close();
                }
                return;
            }
            if (!f.isSuccess()) {
                fail(gen, f.cause().getMessage());
                return;
            }
            connection = (BackendConnection) f.getNow();
            runChecks(gen, connection);
        });
    }

    private void armTimeout(int gen, CheckDeadline deadline) {
        long delay = Math.max(0, deadline.deadlineNanos() - loop.ticker().nanoTime());
        loop.schedule(() -> {
            if (!checking || gen != generation) {
                return;
            }
            long now = loop.ticker().nanoTime();
            if (deadline.proxyStalled(now)) {
                results.stalled(this, deadline.lateMillis(now), deadline.allowanceMillis());
                armTimeout(gen, deadline.extendedFrom(now));
                return;
            }
            fail(gen, "no answer within " + deadline.allowanceMillis() + " ms");
        }, delay, TimeUnit.NANOSECONDS);
    }

    private void runChecks(int gen, BackendConnection c) {
        boolean mariaDb = ObservationQueries.isMariaDb(c.serverVersion());
        CompletableFuture<QueryResult> vars = InternalQuery.run(c,
                mariaDb ? ObservationQueries.MARIADB_VARIABLES : ObservationQueries.MYSQL_VARIABLES);
        CompletableFuture<QueryResult> repl = InternalQuery.run(c,
                mariaDb ? ObservationQueries.MARIADB_REPLICATION : ObservationQueries.MYSQL_REPLICATION);
        vars.thenCombine(repl, (v, r) -> {
            if (v.isError()) {
                throw new IllegalStateException(v.error().get().message());
            }
            return ObservationQueries.read(v, r.isError() ? emptyResult() : r);
        }).whenComplete((obs, error) -> loop.execute(() -> {
            if (gen != generation || !checking) {
                return;
            }
            if (error != null) {
                fail(gen, error.getMessage());
                return;
            }
            checking = false;
            misses.answered();
            results.observed(this, obs);
        }));
    }

    private static QueryResult emptyResult() {
        return new QueryResult(java.util.List.of(), java.util.List.of(), 0, java.util.Optional.empty());
    }

    private void fail(int gen, String reason) {
        if (gen != generation) {
            return;
        }
        checking = false;
        generation++;
        if (connection != null) {
            connection.close();
            connection = null;
        }
        if (misses.missed()) {
            results.unreachable(this, reason);
            return;
        }
        results.missed(this, reason, misses.inRow(), misses.downAfter());
        loop.execute(this::startCheck);
    }

    void close() {
        loop.execute(() -> {
            closed = true;
            if (connection != null) {
                connection.close();
                connection = null;
            }
        });
    }
}
