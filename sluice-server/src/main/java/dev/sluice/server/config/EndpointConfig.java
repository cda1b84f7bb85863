package dev.sluice.server.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One endpoint as written in the configuration file (ARCHITECTURE.md "Configuration file").
 *
 * @param weights empty for {@code auto}, else the read weight of each named node (0..10000)
 */
public record EndpointConfig(String name, HostPort listen, String mode, List<String> nodes,
        Optional<Map<String, Integer>> weights, String balancer, String consistency, Duration consistencyTimeout,
        String consistencyTimeoutAction, Duration maxReplicationLag, int minReservedNodes,
        boolean transactionSplitting, String connectionPool, List<String> allow, int maxConnections) {

    public static final String READ_WRITE = "read-write";
    public static final String READ_ONLY = "read-only";

    public boolean isReadOnly() {
        return READ_ONLY.equals(mode);
    }
}
