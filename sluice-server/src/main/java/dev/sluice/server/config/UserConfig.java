package dev.sluice.server.config;

/**
 * A user whose password Sluice is given (needed for accounts whose plugin it cannot verify otherwise).
 *
 * @param fullAuth clients of this user that log in over TLS get {@code caching_sha2_password}'s full
 *     authentication (they send the password itself, which Sluice checks) instead of the fast path
 */
public record UserConfig(String user, Secret password, boolean fullAuth) {
    public UserConfig(String user, String password, boolean fullAuth) {
        this(user, Secret.literal(password), fullAuth);
    }

    public UserConfig(String user, String password) {
        this(user, password, false);
    }
}
