package dev.sluice.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code log-format: json}: one event, one line, one JSON object (BEHAVIOUR §13). */
class JsonLogLineTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant AT = Instant.parse("2026-12-02T06:30:01.234567Z");

    @Test
    void anEventIsOneObjectWithTheFixedKeysInOrder() throws Exception {
        String line = new JsonLogLine(AT, "INFO", "dev.sluice.server.SluiceServer", "main",
                "endpoint 'rw' listening", Optional.empty()).format();
        assertThat(line).isEqualTo("{\"time\":\"2026-12-02T06:30:01.234Z\",\"level\":\"INFO\","
                + "\"logger\":\"dev.sluice.server.SluiceServer\",\"thread\":\"main\","
                + "\"message\":\"endpoint 'rw' listening\"}\n");
        JsonNode o = JSON.readTree(line);
        assertThat(List.copyOf(iterable(o))).containsExactly("time", "level", "logger", "thread", "message");
    }

    @Test
    void quotesLineBreaksAndControlCharactersStayInsideTheirOneLine() throws Exception {
        String message = "a \"quoted\" word\nsecond line\ttab \\ back\u0001 é";
        String trace = "java.lang.IllegalStateException: boom\n\tat dev.sluice.X.y(X.java:1)\n";
        String line = new JsonLogLine(AT, "WARN", "l", "sluice-io-1", message, Optional.of(trace)).format();
        assertThat(line).endsWith("}\n");
        assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n", "\r", "\t", "\u0001");
        JsonNode o = JSON.readTree(line);
        assertThat(o.get("message").asText()).isEqualTo(message);
        assertThat(o.get("exception").asText()).isEqualTo(trace);
        assertThat(o.get("thread").asText()).isEqualTo("sluice-io-1");
        assertThat(o.get("level").asText()).isEqualTo("WARN");
    }

    private static java.util.List<String> iterable(JsonNode o) {
        java.util.List<String> names = new java.util.ArrayList<>();
        o.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
