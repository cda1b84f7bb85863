package dev.sluice.server.frontend;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.backend.SessionTracking;
import dev.sluice.server.backend.TextResultCollector;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The backend connections of one client session, by node, opened when first needed. A backend
 * opened late first replays the session's state (USE, SET …) so that it agrees with the others
 * before it runs anything for the client.
 */
final class SessionBackends {
    private final EventLoop loop;
    private final BackendConnector connector;
    private final EndpointRuntime endpoint;
    private final SluiceMetrics metrics;
    private final Consumer<BackendConnection> lost;
    private final Map<Integer, BackendConnection> open = new HashMap<>();
    private final Map<Integer, Promise<BackendConnection>> opening = new HashMap<>();

    /** {@code lost} hears of a session backend that the server closed between two commands. */
    SessionBackends(EventLoop loop, BackendConnector connector, EndpointRuntime endpoint, SluiceMetrics metrics,
            Consumer<BackendConnection> lost) {
        this.metrics = metrics;
        this.lost = lost;
        this.loop = loop;
        this.connector = connector;
        this.endpoint = endpoint;
    }

    /** The node's connection if it is open and usable. */
    BackendConnection ready(int nodeId) {
        BackendConnection b = open.get(nodeId);
        if (b != null && !b.isUsable()) {
            open.remove(nodeId);
            endpoint.backendClosed(nodeId);
            return null;
        }
        return b;
    }

    Collection<BackendConnection> all() {
        return List.copyOf(open.values());
    }

    boolean isEmpty() {
        return open.isEmpty() && opening.isEmpty();
    }

    /**
     * Opens a connection to {@code node}, logs in with {@code login}, runs {@code replay} (each a
     * whole command packet) and completes once every replayed command succeeded.
     */
    Future<BackendConnection> open(NodeRef node, Supplier<LoginRequest> login, Supplier<List<ReplayCommand>> replay) {
        Promise<BackendConnection> existing = opening.get(node.id());
        if (existing != null) {
            return existing;
        }
        Promise<BackendConnection> done = loop.newPromise();
        opening.put(node.id(), done);
        connector.connect(loop, node.name(), node.id(), node.address(), login.get()).addListener(f -> {
            metrics.backendConnect(node.name(), f.isSuccess());
            if (!f.isSuccess()) {
                opening.remove(node.id());
                done.tryFailure(f.cause());
                return;
            }
            BackendConnection b = (BackendConnection) f.getNow();
            SessionTracking.enable(b);
            runReplay(b, replay.get()).whenComplete((ok, error) -> loop.execute(() -> {
                opening.remove(node.id());
                if (error != null) {
                    b.close();
                    done.tryFailure(error);
                } else if (!done.isDone()) {
                    watch(b);
                    open.put(node.id(), b);
                    endpoint.backendOpened(node.id());
                    done.trySuccess(b);
                } else {
                    b.close();
                }
            }));
        });
        return done;
    }

    private static CompletableFuture<Void> runReplay(BackendConnection b, List<ReplayCommand> commands) {
        List<CompletableFuture<QueryResult>> results = new ArrayList<>(commands.size());
        for (ReplayCommand command : commands) {
            TextResultCollector collector = new TextResultCollector();
            b.send(command.packet(), command.kind(), collector);
            results.add(collector.result());
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenAccept(v -> {
            for (CompletableFuture<QueryResult> r : results) {
                QueryResult q = r.join();
                if (q.isError()) {
                    throw new BackendException(q.error().get());
                }
            }
        });
    }

    /** Adds a connection opened elsewhere (the first one, at login). */
    void adopt(BackendConnection b) {
        SessionTracking.enable(b);
        watch(b);
        open.put(b.nodeId(), b);
        endpoint.backendOpened(b.nodeId());
    }

    private void watch(BackendConnection b) {
        b.onLostWhileIdle(() -> {
            if (open.remove(b.nodeId(), b)) {
                endpoint.backendClosed(b.nodeId());
                lost.accept(b);
            }
        });
    }

    void remove(BackendConnection b) {
        if (open.remove(b.nodeId(), b)) {
            endpoint.backendClosed(b.nodeId());
        }
        b.close();
    }

    /** Node ids with an open connection. */
    java.util.Set<Integer> nodeIds() {
        return java.util.Set.copyOf(open.keySet());
    }

    void closeAll() {
        for (BackendConnection b : open.values()) {
            b.close();
            endpoint.backendClosed(b.nodeId());
        }
        open.clear();
        for (Promise<BackendConnection> p : opening.values()) {
            p.tryFailure(new BackendException("session closed"));
        }
        opening.clear();
    }
}
