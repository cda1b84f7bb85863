package dev.sluice.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * One {@code --set key=value}. The value is read as YAML — a scalar or a flow collection — so the
 * shell line says it the way the configuration file does: {@code weights='{primary: 0, ro1: 100}'},
 * {@code max-replication-lag=2s}, {@code transaction-splitting=true}, {@code allow='[10.0.0.0/8]'}.
 * Whether the key and value make sense is the server's call; this only refuses what is not a
 * {@code key=value} at all.
 *
 * @param key the setting, in its configuration-file (kebab-case) name
 * @param value the value as JSON
 */
record SettingAssignment(String key, JsonNode value) {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static SettingAssignment parse(String text) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("'" + text + "' is not key=value, e.g. max-replication-lag=2s");
        }
        String key = text.substring(0, eq).trim();
        String raw = text.substring(eq + 1);
        if (raw.isBlank()) {
            throw new IllegalArgumentException(key + ": the value is missing, e.g. " + key + "=…");
        }
        JsonNode value;
        try {
            value = YAML.readTree(raw);
        } catch (IOException e) {
            throw new IllegalArgumentException(key + ": '" + raw + "' is not a YAML value (a scalar, [a, b] or "
                    + "{k: v}): " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (value == null || value.isMissingNode()) {
            throw new IllegalArgumentException(key + ": the value is missing");
        }
        return new SettingAssignment(key, value);
    }

    /** Lets picocli report a malformed {@code --set} as a usage error. */
    static final class Converter implements ITypeConverter<SettingAssignment> {
        @Override
        public SettingAssignment convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
