package dev.sluice.server.admin;

import java.util.Map;

/**
 * One node in DescribeDBProxy.
 *
 * @param name node name
 * @param address {@code host:port}
 * @param role {@code primary} or {@code replica} (the role Sluice follows now, after any switchover)
 * @param zone configured zone, or null
 * @param capacity configured capacity
 * @param state {@code up}, {@code down} or {@code unknown} (not checked yet)
 * @param readOnly {@code @@read_only}
 * @param replication {@code running}, {@code broken} or {@code none} (a primary)
 * @param lagSeconds replication lag, or null when unknown or broken
 * @param gtidPosition applied GTID position, or null
 * @param draining an operator asked sessions to leave it
 * @param endpoints per endpoint using it: weight, readable, sessions, requests
 */
public record NodeDescription(String name, String address, String role, String zone, int capacity, String state,
        boolean readOnly, String replication, Long lagSeconds, String gtidPosition, boolean draining,
        Map<String, NodeLoad> endpoints) {

    /**
     * A node as one endpoint uses it.
     *
     * @param weight read weight on this endpoint
     * @param readable takes new reads now (BEHAVIOUR §4 readable set)
     * @param activeSessions sessions of this endpoint with a connection to the node
     * @param activeRequests statements of this endpoint running on the node now
     * @param statements statements of this endpoint routed to the node since start
     */
    public record NodeLoad(int weight, boolean readable, int activeSessions, int activeRequests, long statements) {
    }
}
