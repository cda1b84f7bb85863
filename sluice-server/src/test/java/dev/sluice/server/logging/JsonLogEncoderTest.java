package dev.sluice.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A logback event written by {@link JsonLogEncoder}: the message formatted, the throwable as its trace. */
class JsonLogEncoderTest {

    @Test
    void anEventWithArgumentsAndAThrowableBecomesOneJsonLine() throws Exception {
        LoggerContext context = new LoggerContext();
        Logger logger = context.getLogger("dev.sluice.server.admin.ConfigReload");
        LoggingEvent event = new LoggingEvent("fqcn", logger, Level.WARN, "file {} refused: {}",
                new IllegalArgumentException("bad\nweight"), new Object[] {"/etc/sluice.yaml", "weights"});
        event.setThreadName("SIGHUP handler");
        JsonLogEncoder encoder = new JsonLogEncoder();
        encoder.setContext(context);
        encoder.start();
        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);
        assertThat(line).endsWith("}\n").doesNotContain("\n\t");
        assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
        JsonNode o = new ObjectMapper().readTree(line);
        assertThat(o.get("message").asText()).isEqualTo("file /etc/sluice.yaml refused: weights");
        assertThat(o.get("level").asText()).isEqualTo("WARN");
        assertThat(o.get("logger").asText()).isEqualTo("dev.sluice.server.admin.ConfigReload");
        assertThat(o.get("thread").asText()).isEqualTo("SIGHUP handler");
        assertThat(o.get("exception").asText()).startsWith("java.lang.IllegalArgumentException: bad\nweight")
                .contains("at dev.sluice.server.logging.JsonLogEncoderTest");
        assertThat(encoder.headerBytes()).isEmpty();
    }
}
