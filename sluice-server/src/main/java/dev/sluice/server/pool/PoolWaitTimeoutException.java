package dev.sluice.server.pool;

import dev.sluice.server.backend.BackendException;

/**
 * No pooled connection to a node became free within the pool's wait timeout. The node itself is
 * fine — it is busy with other clients — so this is never taken as a sign that it is down: no
 * other node is tried in its place for a login, and the monitor is not told.
 */
public final class PoolWaitTimeoutException extends BackendException {
    public PoolWaitTimeoutException(String message) {
        super(message);
    }
}
