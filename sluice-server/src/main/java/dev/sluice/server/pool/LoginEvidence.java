package dev.sluice.server.pool;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Which logins a node accepted lately: this account, with these protocol options, into this
 * database. Sluice checks a client's password itself, but opens a backend connection during the
 * login so that what only the server knows (the database exists, the account may use it) is
 * refused at login, as a server would. With a pool, a login the node accepted a moment ago says
 * the same, and the session's first connection can wait for its first statement — which may go
 * to a replica, or find a pooled connection already in the session's state.
 *
 * <p>Evidence older than {@link #MAX_AGE} is not trusted. One per event loop, like its pool.
 */
public final class LoginEvidence {
    static final Duration MAX_AGE = Duration.ofSeconds(10);
    private static final int MAX_ENTRIES = 1024;

    private record Login(int nodeId, PoolKey key, Optional<String> schema) {
    }

    private final LongSupplier nanoClock;
    private final Map<Login, Long> accepted = new HashMap<>();

    public LoginEvidence() {
        this(System::nanoTime);
    }

    LoginEvidence(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** A connection to {@code nodeId} logged in as {@code key} is now in {@code schema}. */
    public void accepted(int nodeId, PoolKey key, Optional<String> schema) {
        if (accepted.size() >= MAX_ENTRIES) {
            long now = nanoClock.getAsLong();
            accepted.values().removeIf(at -> now - at > MAX_AGE.toNanos());
            if (accepted.size() >= MAX_ENTRIES) {
                accepted.clear();
            }
        }
        accepted.put(new Login(nodeId, key, schema), nanoClock.getAsLong());
    }

    /** Whether such a login was accepted within {@link #MAX_AGE}. */
    public boolean vouchesFor(int nodeId, PoolKey key, Optional<String> schema) {
        Long at = accepted.get(new Login(nodeId, key, schema));
        return at != null && nanoClock.getAsLong() - at <= MAX_AGE.toNanos();
    }
}
