package dev.sluice.server.pool;

/**
 * What a connection pool holds for one node (BEHAVIOUR §12: pool use in Prometheus).
 *
 * @param inUse connections leased to sessions, or logging in for one
 * @param idle connections ready for the next session
 * @param waiting sessions waiting for a connection, the pool being full
 */
public record PoolUse(int inUse, int idle, int waiting) {
    public static final PoolUse NONE = new PoolUse(0, 0, 0);

    public PoolUse plus(PoolUse other) {
        return new PoolUse(inUse + other.inUse, idle + other.idle, waiting + other.waiting);
    }
}
