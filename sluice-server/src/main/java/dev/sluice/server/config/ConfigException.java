package dev.sluice.server.config;

/**
 * A configuration that cannot be used. The message names the offending key (as a path such as
 * {@code endpoints[1].balancer}) and, where there is a closed set, the values that are allowed.
 */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
