package dev.sluice.server.config;

import java.util.Objects;

/**
 * A password or token of the configuration, and where it was given (BEHAVIOUR §12): in the file
 * itself, as {@code "${VARIABLE}"} (the environment variable's value), or as a {@code …-file: PATH}
 * key next to it (the file's content, without its final line break). A configuration written
 * back keeps the reference and never the secret it stands for, and {@link #toString()} never
 * shows a secret, so neither a log line nor an answer of the admin API can carry one by mistake.
 *
 * @param value  the secret itself, for the code that logs in or checks a token
 * @param origin where it came from
 * @param source the variable's name or the file's path as written; empty for {@link Origin#LITERAL}
 */
public record Secret(String value, Origin origin, String source) {
    public static final Secret NONE = literal("");

    /** Where a secret was given. */
    public enum Origin {
        /** In the configuration file itself. */
        LITERAL,
        /** {@code "${VARIABLE}"}: an environment variable of the Sluice process. */
        ENVIRONMENT,
        /** {@code …-file: PATH}: the content of a file. */
        FILE
    }

    public Secret {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(source, "source");
    }

    public static Secret literal(String value) {
        return new Secret(value, Origin.LITERAL, "");
    }

    public boolean isEmpty() {
        return value.isEmpty();
    }

    /** Never the secret: where it comes from, or a mask. */
    @Override
    public String toString() {
        return switch (origin) {
            case LITERAL -> value.isEmpty() ? "(none)" : "(secret)";
            case ENVIRONMENT -> "${" + source + "}";
            case FILE -> "(secret from " + source + ")";
        };
    }
}
