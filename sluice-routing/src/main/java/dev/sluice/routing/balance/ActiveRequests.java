package dev.sluice.routing.balance;

/**
 * How many requests each node is running right now, as counted by the server (atomic counters
 * incremented when a statement is sent and decremented when its answer ends). Read-only here: the
 * routing module never changes load, it only looks at it.
 */
@FunctionalInterface
public interface ActiveRequests {

    /** No load anywhere: every count is 0. */
    ActiveRequests NONE = nodeId -> 0;

    /** Requests in flight on node {@code nodeId}; 0 for a node the server does not know. */
    int activeRequests(int nodeId);
}
