package dev.sluice.server.pool;

/** What an endpoint's pools hold for one node, summed over the I/O threads. */
public record NodePoolUse(String endpoint, String node, PoolUse use) {
}
