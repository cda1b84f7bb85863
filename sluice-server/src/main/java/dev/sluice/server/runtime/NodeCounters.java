package dev.sluice.server.runtime;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Live load of one endpoint per node, indexed by node id (ids are small and never reused):
 * statements running now (what {@code least-active} balances on), sessions holding a connection
 * (what a decommission waits to reach zero), and statements routed so far.
 *
 * <p>Lock-free; sessions on every event loop update them.
 */
final class NodeCounters {
    /** Node ids this many and above are not counted; a proxy would need thousands of node changes to get there. */
    static final int MAX_NODE_IDS = 4096;

    private final AtomicIntegerArray activeRequests = new AtomicIntegerArray(MAX_NODE_IDS);
    private final AtomicIntegerArray activeSessions = new AtomicIntegerArray(MAX_NODE_IDS);
    private final AtomicLongArray statements = new AtomicLongArray(MAX_NODE_IDS);

    private static boolean inRange(int nodeId) {
        return nodeId >= 0 && nodeId < MAX_NODE_IDS;
    }

    int activeRequests(int nodeId) {
        return inRange(nodeId) ? activeRequests.get(nodeId) : 0;
    }

    void requestStarted(int nodeId) {
        if (inRange(nodeId)) {
            activeRequests.incrementAndGet(nodeId);
            statements.incrementAndGet(nodeId);
        }
    }

    void requestEnded(int nodeId) {
        if (inRange(nodeId)) {
            activeRequests.decrementAndGet(nodeId);
        }
    }

    int activeSessions(int nodeId) {
        return inRange(nodeId) ? activeSessions.get(nodeId) : 0;
    }

    void sessionJoined(int nodeId) {
        if (inRange(nodeId)) {
            activeSessions.incrementAndGet(nodeId);
        }
    }

    void sessionLeft(int nodeId) {
        if (inRange(nodeId)) {
            activeSessions.decrementAndGet(nodeId);
        }
    }

    long statements(int nodeId) {
        return inRange(nodeId) ? statements.get(nodeId) : 0;
    }
}
