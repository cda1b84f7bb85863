package dev.sluice.server.config;

import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.server.net.HostPort;

/**
 * One endpoint: where it listens, whether its clients must use TLS, its pool bounds, whether it
 * replays lost transactions, and its routing policy (everything else it is configured with).
 */
public record EndpointConfig(HostPort listen, EndpointPolicy policy, boolean requireTls, PoolSettings pool,
        TransactionReplaySettings replay) {

    public EndpointConfig(HostPort listen, EndpointPolicy policy, boolean requireTls, PoolSettings pool) {
        this(listen, policy, requireTls, pool, TransactionReplaySettings.OFF);
    }

    /** An endpoint that accepts clients with or without TLS. */
    public EndpointConfig(HostPort listen, EndpointPolicy policy) {
        this(listen, policy, false, PoolSettings.DEFAULTS);
    }

    public EndpointConfig(HostPort listen, EndpointPolicy policy, boolean requireTls) {
        this(listen, policy, requireTls, PoolSettings.DEFAULTS);
    }

    public String name() {
        return policy.name();
    }

    public boolean isReadOnly() {
        return policy.mode() == EndpointMode.READ_ONLY;
    }

    public int maxConnections() {
        return policy.maxConnections();
    }

    public EndpointConfig withPolicy(EndpointPolicy newPolicy) {
        return new EndpointConfig(listen, newPolicy, requireTls, pool, replay);
    }
}
