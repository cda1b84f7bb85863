package dev.sluice.server.auth;

import dev.sluice.server.config.LoginFailureLimit;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Failed logins counted per client address <em>and</em> account (docs/SECURITY.md): after
 * {@code max} failures for one account from one address within a window, that account is blocked
 * from that address for the block time — other accounts from the same address log in as before,
 * so one client with a stale password does not lock out the rest of its host. Guessing across
 * many account names from one address is stopped too: after {@link LoginFailureLimit#addressMax()}
 * failures from an address, whatever the accounts, the whole address is blocked (refused before
 * the greeting). Other addresses are never affected. Pure logic over an injected clock;
 * thread-safe.
 *
 * <p>Windows are fixed (they start at the first failure), so up to {@code 2 × max − 1} failures
 * can fall into any sliding window of the same length; that is the precision paid for O(1) memory
 * per entry. The table holds at most {@link #MAX_ENTRIES} entries (an address, or an address and an
 * account): beyond that, the least recently failing entry is forgotten first (an attacker with
 * that many addresses is not stopped by a per-address limit anyway).
 */
public final class LoginThrottle {
    public static final int MAX_ENTRIES = 100_000;

    /** What a failure did. */
    public enum Outcome {
        /** Counted; nothing is blocked by it. */
        COUNTED,
        /** The account is now blocked from this address. */
        ACCOUNT_BLOCKED,
        /** The whole address is now blocked. */
        ADDRESS_BLOCKED
    }

    /** A tally: failures of {@code account} from {@code address}, or of every account when it is null. */
    private record Key(String address, String account) {
    }

    private static final class Tally {
        long windowStart;
        int failures;
        long blockedUntil;
        boolean blocked;
    }

    private final LoginFailureLimit limit;
    private final LongSupplier nanoClock;
    private final int maxEntries;
    private final Map<Key, Tally> tallies = new LinkedHashMap<>(16, 0.75f, true);

    public LoginThrottle(LoginFailureLimit limit, LongSupplier nanoClock) {
        this(limit, nanoClock, MAX_ENTRIES);
    }

    LoginThrottle(LoginFailureLimit limit, LongSupplier nanoClock, int maxEntries) {
        this.limit = limit;
        this.nanoClock = nanoClock;
        this.maxEntries = maxEntries;
    }

    /** A throttle that never blocks. */
    public static LoginThrottle off() {
        return new LoginThrottle(new LoginFailureLimit(0, Duration.ofMinutes(1), Duration.ofMinutes(1)), () -> 0L);
    }

    public LoginFailureLimit limit() {
        return limit;
    }

    /** How much longer {@code address} as a whole is blocked; empty when it may connect. */
    public synchronized Optional<Duration> blockedFor(String address) {
        return remaining(new Key(address, null));
    }

    /** How much longer {@code account} is blocked from {@code address} (or the address as a whole); empty when it may log in. */
    public synchronized Optional<Duration> blockedFor(String address, String account) {
        Optional<Duration> whole = remaining(new Key(address, null));
        return whole.isPresent() ? whole : remaining(new Key(address, account));
    }

    /** Counts a failed login as {@code account} from {@code address}. */
    public synchronized Outcome failed(String address, String account) {
        if (!limit.enabled()) {
            return Outcome.COUNTED;
        }
        long now = nanoClock.getAsLong();
        boolean accountBlocked = count(new Key(address, account), limit.max(), now);
        boolean addressBlocked = count(new Key(address, null), limit.addressMax(), now);
        evictBeyondCapacity(now);
        return addressBlocked ? Outcome.ADDRESS_BLOCKED : accountBlocked ? Outcome.ACCOUNT_BLOCKED : Outcome.COUNTED;
    }

    /** Entries with failures or blocks on record (for tests and metrics). */
    public synchronized int tracked() {
        return tallies.size();
    }

    private Optional<Duration> remaining(Key key) {
        if (!limit.enabled()) {
            return Optional.empty();
        }
        Tally t = tallies.get(key);
        if (t == null || !t.blocked) {
            return Optional.empty();
        }
        long left = t.blockedUntil - nanoClock.getAsLong();
        if (left <= 0) {
            tallies.remove(key);
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(left));
    }

    /** Adds a failure to one tally; true when this failure starts its block. */
    private boolean count(Key key, int max, long now) {
        Tally t = tallies.get(key);
        if (t == null || (t.blocked && now - t.blockedUntil >= 0)) {
            t = new Tally();
            t.windowStart = now;
            tallies.put(key, t);
        }
        if (t.blocked) {
            return false;
        }
        if (now - t.windowStart > limit.window().toNanos()) {
            t.windowStart = now;
            t.failures = 0;
        }
        t.failures++;
        if (t.failures >= max) {
            t.blocked = true;
            t.blockedUntil = now + limit.block().toNanos();
            return true;
        }
        return false;
    }

    private void evictBeyondCapacity(long now) {
        if (tallies.size() <= maxEntries) {
            return;
        }
        // Expired entries first, then the least recently failing ones.
        for (Iterator<Tally> it = tallies.values().iterator(); it.hasNext() && tallies.size() > maxEntries; ) {
            Tally t = it.next();
            if (t.blocked ? now - t.blockedUntil >= 0 : now - t.windowStart > limit.window().toNanos()) {
                it.remove();
            }
        }
        for (Iterator<Tally> it = tallies.values().iterator(); it.hasNext() && tallies.size() > maxEntries; ) {
            it.next();
            it.remove();
        }
    }
}
