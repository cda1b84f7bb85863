package dev.sluice.server.pool;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The backend connections of one endpoint on one event loop, per node: idle ones ready for the
 * next session, a bound on how many may exist, and sessions waiting when all are in use.
 *
 * <p>One pool per event loop keeps a connection on the loop of every session that uses it — the
 * rule that lets a session and its backends share a thread — without any locking. The node
 * bound is split evenly between loops.
 *
 * <pre>
 *   acquire ──▶ idle connection of the same key (the same state first) ──▶ ready
 *           ├─▶ below the bound: connect ───────────────────▶ ready
 *           └─▶ at the bound: wait (until a release, or the wait timeout)
 *   release ──▶ a waiter of the same key, else idle (closed after the idle timeout)
 * </pre>
 */
public final class LoopPool implements AutoCloseable {
    private static final long SWEEP_MILLIS = 1000;

    private final EventLoop loop;
    private final BackendConnector connector;
    private final int maxPerNode;
    private final Duration idleTimeout;
    private final Duration waitTimeout;
    private final Map<Integer, NodeSlots> nodes = new HashMap<>();
    private final ScheduledFuture<?> sweeper;
    private final SetAnswers setAnswers = new SetAnswers();
    private final LoginEvidence logins = new LoginEvidence();
    private boolean closed;

    private record Idle(BackendConnection connection, PoolKey key, long sinceNanos) {
    }

    private record Waiter(NodeRef node, PoolKey key, Supplier<LoginRequest> login,
            Promise<BackendConnection> promise, long deadlineNanos) {
    }

    private static final class NodeSlots {
        int open;
        final ArrayDeque<Idle> idle = new ArrayDeque<>();
        final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    }

    public LoopPool(EventLoop loop, BackendConnector connector, int maxPerNode, Duration idleTimeout,
            Duration waitTimeout) {
        this.loop = loop;
        this.connector = connector;
        this.maxPerNode = Math.max(1, maxPerNode);
        this.idleTimeout = idleTimeout;
        this.waitTimeout = waitTimeout;
        this.sweeper = loop.scheduleAtFixedRate(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Connections to {@code nodeId} that exist now (idle and leased). */
    public int open(int nodeId) {
        NodeSlots s = nodes.get(nodeId);
        return s == null ? 0 : s.open;
    }

    public int idle(int nodeId) {
        NodeSlots s = nodes.get(nodeId);
        return s == null ? 0 : s.idle.size();
    }

    /** What this pool holds for {@code nodeId}, read on its own loop (the only thread that changes it). */
    public Future<PoolUse> use(int nodeId) {
        return loop.inEventLoop() ? loop.newSucceededFuture(useNow(nodeId)) : loop.submit(() -> useNow(nodeId));
    }

    private PoolUse useNow(int nodeId) {
        NodeSlots s = nodes.get(nodeId);
        if (s == null) {
            return PoolUse.NONE;
        }
        int waiting = (int) s.waiters.stream().filter(w -> !w.promise().isDone()).count();
        return new PoolUse(s.open - s.idle.size(), s.idle.size(), waiting);
    }

    /** Which logins this loop's connections had accepted lately; see {@link LoginEvidence}. */
    public LoginEvidence logins() {
        return logins;
    }

    /** How this loop's backends answered session commands; see {@link SetAnswers}. */
    public SetAnswers setAnswers() {
        return setAnswers;
    }

    /**
     * A connection to {@code node} for a session with {@code key}, preferably one that already
     * carries the session's state ({@code stateTag}); completes on this pool's loop.
     */
    public Future<BackendConnection> acquire(NodeRef node, PoolKey key, String stateTag,
            Supplier<LoginRequest> login) {
        Promise<BackendConnection> promise = loop.newPromise();
        if (closed) {
            return promise.setFailure(new BackendException("the endpoint is shutting down"));
        }
        NodeSlots slots = nodes.computeIfAbsent(node.id(), id -> new NodeSlots());
        Idle idle;
        while ((idle = takeIdle(slots, key, stateTag)) != null) {
            if (idle.connection().isUsable()) {
                return promise.setSuccess(idle.connection());
            }
            slots.open--;
        }
        if (slots.open < maxPerNode) {
            connect(slots, node, login, promise);
            return promise;
        }
        Idle other = slots.idle.pollLast();
        if (other != null) {
            // Full, but with an idle connection of another key: trade it for one of ours. The
            // closed one's slot is freed first, or the count would keep a connection that is gone.
            other.connection().close();
            slots.open--;
            connect(slots, node, login, promise);
            return promise;
        }
        slots.waiters.addLast(new Waiter(node, key, login, promise, System.nanoTime() + waitTimeout.toNanos()));
        return promise;
    }

    /** A connection comes back, clean and usable, from a session. */
    public void release(BackendConnection connection, PoolKey key) {
        NodeSlots slots = nodes.computeIfAbsent(connection.nodeId(), id -> new NodeSlots());
        if (closed || !connection.isUsable() || connection.pendingResponses() > 0) {
            connection.close();
            slots.open--;
            serveWaiter(slots);
            return;
        }
        for (Iterator<Waiter> it = slots.waiters.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.key().equals(key) && !w.promise().isDone()) {
                it.remove();
                if (w.promise().trySuccess(connection)) {
                    return;
                }
            }
        }
        if (!slots.waiters.isEmpty()) {
            connection.close();
            slots.open--;
            serveWaiter(slots);
            return;
        }
        connection.onLostWhileIdle(() -> forgetIdle(slots, connection));
        slots.idle.addLast(new Idle(connection, key, System.nanoTime()));
    }

    /** A leased connection is gone for good (closed, broken): its slot is free again. */
    public void discard(BackendConnection connection) {
        connection.close();
        NodeSlots slots = nodes.get(connection.nodeId());
        if (slots != null) {
            slots.open--;
            serveWaiter(slots);
        }
    }

    private Idle takeIdle(NodeSlots slots, PoolKey key, String stateTag) {
        // One that carries the session's state saves the reset and the replay; else the most
        // recently used: it is the warmest, and the others age out.
        Idle fallback = null;
        for (Iterator<Idle> it = slots.idle.descendingIterator(); it.hasNext(); ) {
            Idle i = it.next();
            if (!i.key().equals(key)) {
                continue;
            }
            if (stateTag.equals(i.connection().stateTag())) {
                it.remove();
                return i;
            }
            if (fallback == null) {
                fallback = i;
            }
        }
        if (fallback != null) {
            slots.idle.remove(fallback);
        }
        return fallback;
    }

    private void connect(NodeSlots slots, NodeRef node, Supplier<LoginRequest> login,
            Promise<BackendConnection> promise) {
        slots.open++;
        connector.connect(loop, node.name(), node.id(), node.address(), login.get()).addListener(f -> {
            if (f.isSuccess()) {
                BackendConnection c = (BackendConnection) f.getNow();
                if (!promise.trySuccess(c)) {
                    release(c, null);
                }
            } else {
                slots.open--;
                promise.tryFailure(f.cause());
                serveWaiter(slots);
            }
        });
    }

    private void serveWaiter(NodeSlots slots) {
        while (!slots.waiters.isEmpty() && slots.open < maxPerNode) {
            Waiter w = slots.waiters.pollFirst();
            if (!w.promise().isDone()) {
                connect(slots, w.node(), w.login(), w.promise());
            }
        }
    }

    private void forgetIdle(NodeSlots slots, BackendConnection connection) {
        if (slots.idle.removeIf(i -> i.connection() == connection)) {
            slots.open--;
            serveWaiter(slots);
        }
    }

    private void sweep() {
        long now = System.nanoTime();
        for (NodeSlots slots : nodes.values()) {
            for (Iterator<Idle> it = slots.idle.iterator(); it.hasNext(); ) {
                Idle i = it.next();
                if (now - i.sinceNanos() > idleTimeout.toNanos() || !i.connection().isUsable()) {
                    it.remove();
                    i.connection().close();
                    slots.open--;
                }
            }
            for (Iterator<Waiter> it = slots.waiters.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                if (now > w.deadlineNanos()) {
                    it.remove();
                    w.promise().tryFailure(new PoolWaitTimeoutException("no connection to backend '" + w.node().name()
                            + "' became free within " + waitTimeout.toMillis() + " ms (the pool's bound is "
                            + maxPerNode + " per I/O thread): raise pool-max-connections or shorten transactions"));
                }
            }
            serveWaiter(slots);
        }
    }

    @Override
    public void close() {
        loop.execute(() -> {
            closed = true;
            sweeper.cancel(false);
            for (NodeSlots slots : nodes.values()) {
                for (Idle i : slots.idle) {
                    i.connection().close();
                }
                slots.idle.clear();
                for (Waiter w : slots.waiters) {
                    w.promise().tryFailure(new BackendException("the endpoint is shutting down"));
                }
                slots.waiters.clear();
            }
        });
    }
}
