package dev.sluice.server.runtime;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.policy.ConnectionPoolMode;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.pool.PoolUse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A running endpoint: its settings, the routing view built from them and the current topology,
 * and its live counters. The view is rebuilt when the topology or the settings change — never
 * per statement — and read by sessions with one volatile read.
 */
public final class EndpointRuntime implements ActiveRequests {
    private volatile EndpointConfig config;
    private volatile EndpointView view;
    private final NodeCounters counters = new NodeCounters();
    private final AtomicInteger sessions = new AtomicInteger();
    private final LongAdder commands = new LongAdder();
    private final java.util.Map<io.netty.channel.EventLoop, dev.sluice.server.pool.LoopPool> pools =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final int ioThreads;
    /** Loop pools made so far: which share of the bound the next one gets. */
    private final AtomicInteger poolsCreated = new AtomicInteger();
    private final java.util.Set<SessionHandle> liveSessions = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What the runtime may ask of a live session, on its own event loop. */
    public interface SessionHandle {
        /** Close connections to removed or draining nodes if the session is at a transaction boundary. */
        void leaveRetiredNodesSoon();

        /** The monitor found replica {@code nodeId} unreachable: stop waiting on it (see frontend.NodeDepartures). */
        void leaveUnreachableReplica(int nodeId);

        /** Where the session stands toward the primary {@code primaryId}, read on its own loop (BEHAVIOUR §10). */
        java.util.concurrent.CompletableFuture<SessionStanding> standing(int primaryId);

        /**
         * The primary moved off {@code nodeId}: the session closes its idle connection there, so that
         * its next statement for the primary opens one on the new primary, which replays its state.
         */
        java.util.concurrent.CompletableFuture<Void> leaveFormerPrimary(int nodeId);

        /**
         * The primary {@code nodeId} is gone and a failover replaces it: the session drops every
         * connection there, whatever it is doing; a transaction open there is lost (BEHAVIOUR §10).
         */
        java.util.concurrent.CompletableFuture<Void> abandonFailedPrimary(int nodeId);

        /**
         * Sluice is stopping: the session closes at its next transaction boundary (at once if it stands
         * at one). Completes, on its loop, when the session has ended, saying how; asking again
         * returns the same future.
         */
        java.util.concurrent.CompletableFuture<SessionEnd> closeAtBoundary();

        /** The shutdown timeout ran out: the session closes now, whatever it was doing. */
        void cut();
    }

    /** Set once Sluice stops: who asks a session that registers from then on to end at its boundary. */
    private volatile java.util.function.Consumer<SessionHandle> closing;

    /** The live sessions, at this moment. */
    public java.util.List<SessionHandle> sessions() {
        return java.util.List.copyOf(liveSessions);
    }

    public void register(SessionHandle s) {
        liveSessions.add(s);
        java.util.function.Consumer<SessionHandle> stopping = closing;
        if (stopping != null) {
            stopping.accept(s);
        }
    }

    /**
     * Sluice is stopping: {@code ask} is given every live session, and every session that registers
     * from now on (a login that was under way when the listener closed). It may see one twice.
     */
    public void closeSessionsAtBoundary(java.util.function.Consumer<SessionHandle> ask) {
        closing = ask;
        for (SessionHandle s : liveSessions) {
            ask.accept(s);
        }
    }

    public void unregister(SessionHandle s) {
        liveSessions.remove(s);
    }

    /** Asks every live session to leave removed or draining nodes as soon as it can. */
    public void sessionsLeaveRetiredNodes() {
        for (SessionHandle s : liveSessions) {
            s.leaveRetiredNodesSoon();
        }
    }

    /** Every live session leaves a replica that stopped answering. */
    public void sessionsLeaveUnreachableReplica(int nodeId) {
        for (SessionHandle s : liveSessions) {
            s.leaveUnreachableReplica(nodeId);
        }
    }

    public EndpointRuntime(EndpointConfig config, Topology topology) {
        this(config, topology, 1);
    }

    /** @param ioThreads how many event loops share the endpoint's per-node pool bound */
    public EndpointRuntime(EndpointConfig config, Topology topology, int ioThreads) {
        this.ioThreads = Math.max(1, ioThreads);
        this.config = config;
        this.view = EndpointView.of(topology, config.policy());
    }

    public EndpointConfig config() {
        return config;
    }

    public EndpointView view() {
        return view;
    }

    public String name() {
        return config.name();
    }

    /** The monitor or an operator changed the topology. */
    public synchronized void onTopology(Topology topology) {
        view = view.next(topology, config.policy());
    }

    /**
     * Catches up with the topology as it is now. An endpoint is built from a snapshot but hears of
     * changes only once registered with the runtime; a change in between (the monitor's first
     * observations arriving while the endpoint binds its port) would otherwise be missed until the
     * next change, which in a quiet cluster may never come: replicas seen up would stay unusable for
     * this endpoint. Read under the lock, so it never replaces a newer delivery with an older one.
     */
    public synchronized void catchUp(java.util.function.Supplier<Topology> current) {
        Topology now = current.get();
        if (now != view.topology()) {
            view = view.next(now, config.policy());
        }
    }

    /** An operator changed the settings: new sessions and next statements see them. */
    public synchronized void reconfigure(EndpointConfig newConfig, Topology topology) {
        config = newConfig;
        view = view.next(topology, newConfig.policy());
    }

    /**
     * The backend connection pool of {@code loop} for this endpoint (BEHAVIOUR §7). Each event loop has
     * its own, so that a pooled connection always lives on the loop of the session using it; the
     * per-node bound is divided between them.
     */
    public dev.sluice.server.pool.LoopPool pool(io.netty.channel.EventLoop loop,
            dev.sluice.server.backend.BackendConnector connector) {
        return pools.computeIfAbsent(loop, l -> {
            var p = config.pool();
            // The shares add up to the bound exactly (64 over 3 loops: 22, 21, 21), so the node never
            // sees more than pool-max-connections; rounding each share up would overshoot it.
            int index = poolsCreated.getAndIncrement();
            int share = p.maxConnectionsPerNode() / ioThreads + (index < p.maxConnectionsPerNode() % ioThreads ? 1 : 0);
            return new dev.sluice.server.pool.LoopPool(l, connector, Math.max(1, share), p.idleTimeout(),
                    p.waitTimeout());
        });
    }

    /** Backend connections the pools hold to {@code nodeId}, idle or leased. */
    public int pooledConnections(int nodeId) {
        return pools.values().stream().mapToInt(p -> p.open(nodeId)).sum();
    }

    /**
     * What this endpoint's pools hold for {@code nodeId}, summed over the I/O threads; each pool is
     * read on its own thread, waiting at most {@code timeout} for it. Empty when the endpoint has no
     * pool ({@code connection-pool: none}).
     */
    public Optional<PoolUse> poolUse(int nodeId, Duration timeout) {
        if (config.policy().connectionPool() == ConnectionPoolMode.NONE) {
            return Optional.empty();
        }
        PoolUse sum = PoolUse.NONE;
        for (var p : pools.values()) {
            try {
                sum = sum.plus(p.use(nodeId).get(timeout.toMillis(), TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
                // A busy or stopped thread: its share is left out of this reading.
            }
        }
        return Optional.of(sum);
    }

    /** Closes the pools' idle connections (the endpoint stops). */
    public void closePools() {
        for (var p : pools.values()) {
            p.close();
        }
    }

    // ---- load ----

    @Override
    public int activeRequests(int nodeId) {
        return counters.activeRequests(nodeId);
    }

    public void requestStarted(int nodeId) {
        counters.requestStarted(nodeId);
    }

    public void requestEnded(int nodeId) {
        counters.requestEnded(nodeId);
    }

    public int activeSessions(int nodeId) {
        return counters.activeSessions(nodeId);
    }

    public void backendOpened(int nodeId) {
        counters.sessionJoined(nodeId);
    }

    public void backendClosed(int nodeId) {
        counters.sessionLeft(nodeId);
    }

    public long statements(int nodeId) {
        return counters.statements(nodeId);
    }

    /** Counts a new session unless the endpoint is full; false means refuse it. */
    public boolean trySessionStarted() {
        int max = config.maxConnections();
        while (true) {
            int n = sessions.get();
            if (n >= max) {
                return false;
            }
            if (sessions.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    public void sessionEnded() {
        sessions.decrementAndGet();
    }

    public int activeSessions() {
        return sessions.get();
    }

    public void recordCommand() {
        commands.increment();
    }

    public long commands() {
        return commands.sum();
    }
}
