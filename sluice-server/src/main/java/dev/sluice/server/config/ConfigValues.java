package dev.sluice.server.config;

import dev.sluice.server.net.HostPort;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsers for the scalar forms used in the configuration file: durations, sizes, addresses. */
public final class ConfigValues {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)b?");
    private static final long KIB = 1024;

    private ConfigValues() {
    }

    /** {@code 10ms}, {@code 1s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
    public static Duration duration(String path, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.chars().allMatch(Character::isDigit) && !t.isEmpty()) {
            return Duration.ofSeconds(Long.parseLong(t));
        }
        Matcher m = DURATION.matcher(t);
        if (!m.matches()) {
            throw new ConfigException(path + ": '" + text + "' is not a duration; write e.g. 10ms, 1s, 2m or 1h");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    /** {@code 1024}, {@code 64k}, {@code 16m}, {@code 1g} (binary units). */
    public static long size(String path, String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new ConfigException(path + ": '" + text + "' is not a size; write e.g. 65536, 64k, 16m or 1g");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "k" -> n * KIB;
            case "m" -> n * KIB * KIB;
            case "g" -> n * KIB * KIB * KIB;
            default -> n;
        };
    }

    /** {@code host:port}, {@code [v6]:port}; a configuration error names {@code path}. */
    public static HostPort hostPort(String path, String text) {
        try {
            return HostPort.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(path + ": " + e.getMessage());
        }
    }
}
