package dev.sluice.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * One mapping of the configuration tree, read key by key. It remembers which keys were read so
 * that {@link #rejectUnknownKeys()} can name any key nobody asked for, with the keys that are
 * allowed — a typo in a config file must stop the start, not be silently ignored.
 */
final class YamlSection {
    private final String path;
    private final JsonNode node;
    private final Set<String> known = new LinkedHashSet<>();

    YamlSection(String path, JsonNode node) {
        this.path = path;
        this.node = node;
        if (node != null && !node.isNull() && !node.isObject()) {
            throw new ConfigException(where() + " must be a mapping of key: value");
        }
    }

    String path() {
        return path;
    }

    private String where() {
        return path.isEmpty() ? "the configuration" : path;
    }

    private String keyPath(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private Optional<JsonNode> raw(String key) {
        known.add(key);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v);
    }

    boolean has(String key) {
        known.add(key);
        return node != null && node.has(key) && !node.get(key).isNull();
    }

    Optional<String> text(String key) {
        return raw(key).map(v -> {
            if (!v.isValueNode()) {
                throw new ConfigException(keyPath(key) + " must be a single value");
            }
            return v.asText();
        });
    }

    String requiredText(String key) {
        return text(key).orElseThrow(() -> new ConfigException(keyPath(key) + " is required"));
    }

    <T> T parsed(String key, T fallback, Function<String, T> parser) {
        return text(key).map(parser).orElse(fallback);
    }

    int integer(String key, int fallback, int min, int max) {
        return raw(key).map(v -> {
            if (!v.canConvertToInt() || !v.isIntegralNumber()) {
                throw new ConfigException(keyPath(key) + ": '" + v.asText() + "' is not a whole number");
            }
            int i = v.asInt();
            if (i < min || i > max) {
                throw new ConfigException(keyPath(key) + ": " + i + " is outside " + min + ".." + max);
            }
            return i;
        }).orElse(fallback);
    }

    boolean bool(String key, boolean fallback) {
        return raw(key).map(v -> {
            if (!v.isBoolean()) {
                throw new ConfigException(keyPath(key) + ": '" + v.asText() + "' must be true or false");
            }
            return v.asBoolean();
        }).orElse(fallback);
    }

    /** A value of a configuration enum ({@code least-active}, {@code read-only} …); the message lists them all. */
    <E extends Enum<E> & dev.sluice.routing.policy.ConfigName> E named(String key, E fallback, Class<E> type) {
        Optional<String> v = text(key);
        if (v.isEmpty()) {
            return fallback;
        }
        return dev.sluice.routing.policy.ConfigName.parse(type, v.get()).orElseThrow(() -> new ConfigException(
                keyPath(key) + ": '" + v.get() + "' is not allowed; use one of "
                        + dev.sluice.routing.policy.ConfigName.allowed(type).replace(", ", " | ")));
    }

    /** A value out of a closed set; the message lists the set. */
    String choice(String key, String fallback, String... allowed) {
        Optional<String> v = text(key);
        if (v.isEmpty()) {
            return fallback;
        }
        String s = v.get().trim().toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(s)) {
                return a;
            }
        }
        throw new ConfigException(keyPath(key) + ": '" + v.get() + "' is not allowed; use one of "
                + String.join(" | ", allowed));
    }

    List<String> stringList(String key) {
        Optional<JsonNode> v = raw(key);
        if (v.isEmpty()) {
            return List.of();
        }
        if (!v.get().isArray()) {
            throw new ConfigException(keyPath(key) + " must be a list, e.g. [a, b]");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : v.get()) {
            if (!e.isValueNode()) {
                throw new ConfigException(keyPath(key) + " must be a list of plain values");
            }
            out.add(e.asText());
        }
        return out;
    }

    Optional<YamlSection> section(String key) {
        return raw(key).map(v -> new YamlSection(keyPath(key), v));
    }

    YamlSection sectionOrEmpty(String key) {
        return section(key).orElseGet(() -> new YamlSection(keyPath(key), null));
    }

    List<YamlSection> sectionList(String key) {
        Optional<JsonNode> v = raw(key);
        if (v.isEmpty()) {
            return List.of();
        }
        if (!v.get().isArray()) {
            throw new ConfigException(keyPath(key) + " must be a list");
        }
        List<YamlSection> out = new ArrayList<>();
        int i = 0;
        for (JsonNode e : v.get()) {
            out.add(new YamlSection(keyPath(key) + "[" + i++ + "]", e));
        }
        return out;
    }

    /** The raw node of a key whose shape varies (e.g. {@code weights: auto | {…}}). */
    Optional<JsonNode> node(String key) {
        return raw(key);
    }

    void rejectUnknownKeys() {
        if (node == null || node.isNull()) {
            return;
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!known.contains(k)) {
                throw new ConfigException("unknown key '" + keyPath(k) + "'; allowed keys"
                        + (path.isEmpty() ? "" : " in " + path) + ": " + String.join(", ", known));
            }
        }
    }
}
