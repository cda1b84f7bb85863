package dev.sluice.server.runtime;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.config.EndpointConfig;
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
    private final java.util.Set<SessionHandle> liveSessions = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What the runtime may ask of a live session, on its own event loop. */
    public interface SessionHandle {
        /** Close connections to removed or draining nodes if the session is at a transaction boundary. */
        void leaveRetiredNodesSoon();
    }

    public void register(SessionHandle s) {
        liveSessions.add(s);
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

    public EndpointRuntime(EndpointConfig config, Topology topology) {
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

    /** An operator changed the settings: new sessions and next statements see them. */
    public synchronized void reconfigure(EndpointConfig newConfig, Topology topology) {
        config = newConfig;
        view = view.next(topology, newConfig.policy());
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
