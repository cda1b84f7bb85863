package dev.sluice.server.auth;

import dev.sluice.server.config.LoginFailureLimit;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Failed logins counted per client address: after {@code max} failures within a window, the
 * address is blocked — its new connections are refused at once — for the block time. Other
 * addresses are never affected. Pure logic over an injected clock; thread-safe.
 *
 * <p>Windows are fixed (they start at an address's first failure), so up to {@code 2 × max − 1}
 * failures can fall into any sliding window of the same length; that is the precision paid for O(1)
 * memory per address. The table holds at most {@link #MAX_ADDRESSES} addresses: beyond that, the
 * least recently failing address is forgotten first (an attacker with that many addresses is not
 * stopped by a per-address limit anyway).
 */
public final class LoginThrottle {
    public static final int MAX_ADDRESSES = 100_000;

    private final LoginFailureLimit limit;
    private final LongSupplier nanoClock;
    private final int maxAddresses;
    private final Map<String, Record> byAddress = new LinkedHashMap<>(16, 0.75f, true);

    private static final class Record {
        long windowStart;
        int failures;
        long blockedUntil;
        boolean blocked;
    }

    public LoginThrottle(LoginFailureLimit limit, LongSupplier nanoClock) {
        this(limit, nanoClock, MAX_ADDRESSES);
    }

    LoginThrottle(LoginFailureLimit limit, LongSupplier nanoClock, int maxAddresses) {
        this.limit = limit;
        this.nanoClock = nanoClock;
        this.maxAddresses = maxAddresses;
    }

    /** A throttle that never blocks. */
    public static LoginThrottle off() {
        return new LoginThrottle(new LoginFailureLimit(0, Duration.ofMinutes(1), Duration.ofMinutes(1)), () -> 0L);
    }

    public LoginFailureLimit limit() {
        return limit;
    }

    /** How much longer {@code address} is blocked; empty when it may log in. */
    public synchronized Optional<Duration> blockedFor(String address) {
        if (!limit.enabled()) {
            return Optional.empty();
        }
        Record r = byAddress.get(address);
        if (r == null || !r.blocked) {
            return Optional.empty();
        }
        long left = r.blockedUntil - nanoClock.getAsLong();
        if (left <= 0) {
            byAddress.remove(address);
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(left));
    }

    /** Counts a failed login from {@code address}; true when this failure blocks the address. */
    public synchronized boolean failed(String address) {
        if (!limit.enabled()) {
            return false;
        }
        long now = nanoClock.getAsLong();
        Record r = byAddress.get(address);
        if (r == null || (r.blocked && now - r.blockedUntil >= 0)) {
            r = new Record();
            r.windowStart = now;
            byAddress.put(address, r);
            evictBeyondCapacity(now);
        }
        if (r.blocked) {
            return false;
        }
        if (now - r.windowStart > limit.window().toNanos()) {
            r.windowStart = now;
            r.failures = 0;
        }
        r.failures++;
        if (r.failures >= limit.max()) {
            r.blocked = true;
            r.blockedUntil = now + limit.block().toNanos();
            return true;
        }
        return false;
    }

    /** Addresses with failures or blocks on record (for tests and metrics). */
    public synchronized int trackedAddresses() {
        return byAddress.size();
    }

    private void evictBeyondCapacity(long now) {
        if (byAddress.size() <= maxAddresses) {
            return;
        }
        // Expired records first, then the least recently failing ones.
        for (Iterator<Record> it = byAddress.values().iterator(); it.hasNext() && byAddress.size() > maxAddresses; ) {
            Record r = it.next();
            if (r.blocked ? now - r.blockedUntil >= 0 : now - r.windowStart > limit.window().toNanos()) {
                it.remove();
            }
        }
        for (Iterator<Record> it = byAddress.values().iterator(); it.hasNext() && byAddress.size() > maxAddresses; ) {
            it.next();
            it.remove();
        }
    }
}
