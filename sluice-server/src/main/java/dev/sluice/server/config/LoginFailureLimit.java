package dev.sluice.server.config;

import java.time.Duration;

/**
 * {@code limits.login-failures}: after {@code max} failed logins as one account from one client
 * address within {@code window}, that account's logins from that address are refused for
 * {@code block}; after {@link #addressMax()} from one address, whatever the accounts, every new
 * connection from that address is. {@code max: 0} turns the limit off.
 */
public record LoginFailureLimit(int max, Duration window, Duration block) {
    public static final LoginFailureLimit DEFAULT = new LoginFailureLimit(10, Duration.ofMinutes(1),
            Duration.ofMinutes(1));
    /**
     * How many accounts' worth of failures block a whole address: enough that a few clients with
     * stale passwords on one host never lock out the others, few enough that guessing across many
     * account names from one address stays as slow as guessing one account's password.
     */
    public static final int ACCOUNTS_PER_ADDRESS = 10;

    /** Failures from one address, over all accounts, that block the address. */
    public int addressMax() {
        return max * ACCOUNTS_PER_ADDRESS;
    }

    public boolean enabled() {
        return max > 0;
    }
}
