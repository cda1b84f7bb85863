package dev.sluice.server.config;

import java.time.Duration;

/**
 * How an endpoint's backend connection pool is bounded (used when {@code connection-pool} is
 * {@code session} or {@code transaction}).
 *
 * @param maxConnectionsPerNode backend connections to one node at most, leased and idle together
 * @param idleTimeout an idle pooled connection is closed after this long (BEHAVIOUR §7: 10 s)
 * @param waitTimeout how long a statement may wait for a pooled connection before it gets an error
 */
public record PoolSettings(int maxConnectionsPerNode, Duration idleTimeout, Duration waitTimeout) {
    public static final PoolSettings DEFAULTS = new PoolSettings(64, Duration.ofSeconds(10), Duration.ofSeconds(10));
}
