package dev.sluice.routing.policy;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An enum value as it is spelled in the configuration file and the admin API (kebab-case).
 * The static helpers give the config loader one way to parse a value and to say which values are
 * allowed when it cannot.
 */
public interface ConfigName {

    /** The spelling in YAML and in the admin API, e.g. {@code least-active}. */
    String configName();

    /** The constant spelled {@code text} (case-insensitive, surrounding blanks ignored). */
    static <E extends Enum<E> & ConfigName> Optional<E> parse(Class<E> type, String text) {
        String wanted = text.strip();
        for (E value : type.getEnumConstants()) {
            if (value.configName().equalsIgnoreCase(wanted)) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }

    /** {@code "least-active, weighted"}: for error messages. */
    static <E extends Enum<E> & ConfigName> String allowed(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(ConfigName::configName)
                .collect(Collectors.joining(", "));
    }
}
