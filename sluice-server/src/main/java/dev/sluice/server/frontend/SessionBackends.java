package dev.sluice.server.frontend;

import dev.sluice.protocol.Command;
import dev.sluice.routing.policy.ConnectionPoolMode;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.SessionTracking;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.pool.LoopPool;
import dev.sluice.server.pool.PoolKey;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.GlobalsGeneration;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The backend connections of one client session, by node, opened when first needed — directly,
 * or from the endpoint's pool (BEHAVIOUR §7). Before a connection serves the session it is given the
 * session's state ({@link StateReplay}): a new one replays the session's SET history; a pooled one
 * that carried another session's state is reset ({@link Command#COM_RESET_CONNECTION}) first. A
 * connection's state tag says which state it carries, so a connection that already has it is
 * used as it is.
 *
 * <p>Pool modes: {@code session} keeps connections for the session's life and returns them
 * when the client leaves; {@code transaction} returns them at every transaction boundary
 * ({@link #releaseToPool()}) unless the session is locked to them. A connection returned when its
 * session leaves is reset first, unless all it carries is what its state tag says (see
 * {@link #closeAll}).
 */
final class SessionBackends {

    private final EventLoop loop;
    private final BackendConnector connector;
    private final EndpointRuntime endpoint;
    private final SluiceMetrics metrics;
    private final Consumer<BackendConnection> lost;
    private final BackendState state;
    private final GlobalsGeneration globals;
    private final Map<Integer, BackendConnection> open = new HashMap<>();
    private final Map<Integer, Promise<BackendConnection>> opening = new HashMap<>();
    /** Connections logged in and still being given the session's state, by node. */
    private final Map<Integer, BackendConnection> preparing = new HashMap<>();

    /** {@code lost} hears of a session backend that the server closed between two commands. */
    SessionBackends(EventLoop loop, BackendConnector connector, EndpointRuntime endpoint, SluiceMetrics metrics,
            Consumer<BackendConnection> lost, BackendState state, GlobalsGeneration globals) {
        this.loop = loop;
        this.connector = connector;
        this.endpoint = endpoint;
        this.metrics = metrics;
        this.lost = lost;
        this.state = state;
        this.globals = globals;
    }

    /** A {@code SET GLOBAL} of this session succeeded: pooled connections logged in before it are reset before they serve. */
    void globalsChanged() {
        globals.changed();
    }

    private ConnectionPoolMode mode() {
        return endpoint.config().policy().connectionPool();
    }

    private PoolKey key() {
        var login = state.login();
        return new PoolKey(login.user(), login.clientCapabilities(), login.collation(), state.schema().isPresent());
    }

    /** Which pooled connections can serve this session. */
    PoolKey poolKey() {
        return key();
    }

    /** The session's state, as a connection's tag says it. */
    String stateTag() {
        return state.stateTag();
    }

    /** The answers this session's pool has learned; only with a pool. */
    dev.sluice.server.pool.SetAnswers setAnswers() {
        return pool().setAnswers();
    }

    private LoopPool pool() {
        return endpoint.pool(loop, connector);
    }

    /**
     * The node's connection if it is open and usable. One found dead (its close not yet heard of:
     * the channel turns inactive before its close event runs) is {@linkplain #lost lost} here.
     */
    BackendConnection ready(int nodeId) {
        BackendConnection b = open.get(nodeId);
        if (b != null && !b.isUsable()) {
            lost(b);
            return null;
        }
        return b;
    }

    /**
     * A connection of the session is gone outside the client's command: the server closed it, it
     * failed under one of Sluice's own requests, or it was found dead. Every such path ends here,
     * and the session hears of it once (the {@code lost} callback).
     */
    void lost(BackendConnection b) {
        if (open.remove(b.nodeId(), b)) {
            endpoint.backendClosed(b.nodeId());
            if (mode() != ConnectionPoolMode.NONE) {
                pool().discard(b);
            }
            lost.accept(b);
        }
    }

    Collection<BackendConnection> all() {
        return List.copyOf(open.values());
    }

    boolean isEmpty() {
        return open.isEmpty() && opening.isEmpty();
    }

    /** Opens (or takes from the pool) a connection to {@code node} carrying the session's state. */
    Future<BackendConnection> open(NodeRef node) {
        if (closed) {
            return loop.newFailedFuture(new BackendException("session closed"));
        }
        Promise<BackendConnection> existing = opening.get(node.id());
        if (existing != null) {
            return existing;
        }
        Promise<BackendConnection> done = loop.newPromise();
        opening.put(node.id(), done);
        boolean pooled = mode() != ConnectionPoolMode.NONE;
        long generation = globals.current();
        Future<BackendConnection> got = pooled ? pool().acquire(node, key(), state.stateTag(), state::login)
                : connector.connect(loop, node.name(), node.id(), node.address(), state.login());
        got.addListener(f -> {
            if (!f.isSuccess()) {
                metrics.backendConnect(node.name(), false);
                opening.remove(node.id(), done);
                done.tryFailure(f.cause());
                return;
            }
            BackendConnection b = (BackendConnection) f.getNow();
            if (b.stateTag() == null) {
                metrics.backendConnect(node.name(), true);
                b.globalsTaken(generation);
            } else if (b.globalsTaken() < generation) {
                // Logged in or reset before a SET GLOBAL: the reset of the replay takes the new values.
                b.stateUnknown();
            }
            if (done.isDone()) {
                // Given up while logging in (the node stopped answering, or the session ended).
                giveBack(b, pooled);
                return;
            }
            String tag = state.stateTag();
            boolean resets = StateReplay.resets(b, tag, state);
            preparing.put(node.id(), b);
            StateReplay.giveSessionState(b, node.id(), tag, state).whenComplete((ok, error) -> loop.execute(() -> {
                preparing.remove(node.id(), b);
                opening.remove(node.id(), done);
                if (error != null) {
                    if (pooled) {
                        pool().discard(b);
                    } else {
                        b.close();
                    }
                    // The server's own error (Unknown database …) reaches the client as it is.
                    done.tryFailure(error instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                            ? c.getCause() : error);
                    return;
                }
                b.stateTag(tag);
                if (resets) {
                    b.globalsTaken(generation);
                }
                if (done.isDone()) {
                    giveBack(b, pooled);
                    return;
                }
                watch(b);
                open.put(node.id(), b);
                endpoint.backendOpened(node.id());
                if (pooled) {
                    pool().logins().accepted(node.id(), key(), state.schema());
                }
                done.trySuccess(b);
            }));
        });
        return done;
    }

    /** A connection nobody waits for any more: back to the pool with the state its tag names, or closed. */
    private void giveBack(BackendConnection b, boolean pooled) {
        if (pooled && b.isUsable()) {
            pool().release(b, key());
        } else {
            b.close();
        }
    }

    /**
     * Gives up a connection to {@code nodeId} still being opened (the node stopped answering):
     * whoever waits for it hears it failed now, not at the login's timeout, and a connection
     * already logged in but still receiving the session's state is closed.
     */
    void abandonOpening(int nodeId, String why) {
        Promise<BackendConnection> waiting = opening.remove(nodeId);
        if (waiting != null) {
            waiting.tryFailure(new BackendException(why));
        }
        BackendConnection half = preparing.remove(nodeId);
        if (half != null) {
            half.close();
        }
    }

    /**
     * With a pool: whether {@code node} accepted this session's login (account, options, database)
     * a moment ago, so that the login may complete before the session has a connection.
     */
    boolean loginVouchedFor(NodeRef node) {
        return mode() != ConnectionPoolMode.NONE && pool().logins().vouchesFor(node.id(), key(), state.schema());
    }

    /**
     * A connection opened outside this class (COM_CHANGE_USER opens one to check the new user):
     * kept when there is no pool; with a pool it has served its purpose, and the pool opens the
     * session's connections as it needs them.
     */
    void adopt(BackendConnection b) {
        if (mode() != ConnectionPoolMode.NONE) {
            b.close();
            return;
        }
        SessionTracking.enable(b);
        b.stateTag(state.stateTag());
        watch(b);
        open.put(b.nodeId(), b);
        endpoint.backendOpened(b.nodeId());
    }

    private void watch(BackendConnection b) {
        b.onLostWhileIdle(() -> lost(b));
    }

    /** Drops a connection that failed or must not be used any more. */
    void remove(BackendConnection b) {
        if (open.remove(b.nodeId(), b)) {
            endpoint.backendClosed(b.nodeId());
            if (mode() != ConnectionPoolMode.NONE) {
                pool().discard(b);
                return;
            }
        }
        b.close();
    }

    /**
     * Transaction pooling: at a transaction boundary every idle connection goes back to the pool,
     * tagged with the session's state so that the next session with the same state skips the reset.
     */
    void releaseToPool() {
        if (mode() != ConnectionPoolMode.TRANSACTION) {
            return;
        }
        String tag = state.stateTag();
        for (BackendConnection b : List.copyOf(open.values())) {
            if (b.pendingResponses() == 0 && !opening.containsKey(b.nodeId())) {
                open.remove(b.nodeId());
                endpoint.backendClosed(b.nodeId());
                releaseAsIs(b, tag);
            }
        }
    }

    /** Back to the pool without a reset, tagged with the state it carries. */
    private void releaseAsIs(BackendConnection b, String tag) {
        b.stateTag(tag);
        b.onLostWhileIdle(() -> { });
        pool().release(b, key());
    }

    /** Whether a command runs on the node's connection, or a connection to it is being opened for one. */
    boolean busyOn(int nodeId) {
        BackendConnection b = open.get(nodeId);
        return (b != null && b.pendingResponses() > 0) || opening.containsKey(nodeId);
    }

    /** Node ids with an open connection. */
    java.util.Set<Integer> nodeIds() {
        return java.util.Set.copyOf(open.keySet());
    }

    /**
     * The session ran something whose effect on its connections no state tag describes (a
     * non-statement command such as COM_FIELD_LIST or COM_STMT_PREPARE): they are all reset when
     * it leaves.
     */
    void forgetStates() {
        statesForgotten = true;
    }

    private boolean statesForgotten;
    /** The session ended: nothing is opened for it any more. */
    private boolean closed;

    /**
     * The session ends. Without a pool its connections close; with one they go back to it. One
     * that carries nothing but the session's tracked state ({@code carriesOnlyTrackedState}: no
     * transaction, no lock cause, and the connection ran only SETs and plain reads that ended
     * without warnings) keeps that state and its tag, so that the next session with the same
     * state — a driver opening with the same SET — uses it as it is; that session sees exactly
     * what a reset and its own SETs would have given it. The others are reset first (temporary
     * tables, user variables, locks, transactions, a write's LAST_INSERT_ID must not reach
     * another client).
     */
    void closeAll(boolean carriesOnlyTrackedState) {
        boolean pooled = mode() != ConnectionPoolMode.NONE;
        String tag = state.stateTag();
        for (BackendConnection b : open.values()) {
            endpoint.backendClosed(b.nodeId());
            if (pooled && b.isUsable() && b.pendingResponses() == 0) {
                if (carriesOnlyTrackedState && !statesForgotten && b.stateKnown()) {
                    releaseAsIs(b, tag);
                } else {
                    returnReset(b);
                }
            } else if (pooled) {
                pool().discard(b);
            } else {
                b.close();
            }
        }
        open.clear();
        for (Promise<BackendConnection> p : opening.values()) {
            p.tryFailure(new BackendException("session closed"));
        }
        opening.clear();
    }

    /** The session ends: its connections go as {@link #closeAll} says, and nothing is opened for it any more. */
    void end(boolean carriesOnlyTrackedState) {
        closed = true;
        closeAll(carriesOnlyTrackedState);
    }

    private void returnReset(BackendConnection b) {
        LoopPool pool = pool();
        PoolKey key = key();
        String fresh = state.freshTag(state.schema());
        long generation = globals.current();
        b.onLostWhileIdle(() -> { });
        StateReplay.reset(b, state.schema(), state.loginCharset()).whenComplete((ok, error) -> loop.execute(() -> {
            if (error != null) {
                pool.discard(b);
            } else {
                b.stateTag(fresh);
                b.globalsTaken(generation);
                pool.release(b, key);
            }
        }));
    }
}
