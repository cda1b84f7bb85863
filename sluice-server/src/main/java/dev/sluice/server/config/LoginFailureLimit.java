package dev.sluice.server.config;

import java.time.Duration;

/**
 * {@code limits.login-failures}: after {@code max} failed logins from one client address within
 * {@code window}, new connections from that address are refused for {@code block}.
 * {@code max: 0} turns the limit off.
 */
public record LoginFailureLimit(int max, Duration window, Duration block) {
    public static final LoginFailureLimit DEFAULT = new LoginFailureLimit(10, Duration.ofMinutes(1),
            Duration.ofMinutes(1));

    public boolean enabled() {
        return max > 0;
    }
}
