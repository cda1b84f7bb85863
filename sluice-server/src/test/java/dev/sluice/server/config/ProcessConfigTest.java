package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.server.config.ProcessConfig.LogFormat;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The service keys {@code shutdown-timeout}, {@code log-format} and {@code query-digests} (BEHAVIOUR §12–§13). */
class ProcessConfigTest {
    private static final String BASE = """
            monitor: {user: monitor, password: monitor, interval: 1s}
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312, role: replica}
            endpoints:
              - {name: rw, listen: 127.0.0.1:6033, mode: read-write}
            """;

    @Test
    void withoutTheKeysSluiceWaitsThirtySecondsAndWritesText() {
        ProcessConfig p = ConfigLoader.parse(BASE).process();
        assertThat(p.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.logFormat()).isEqualTo(LogFormat.TEXT);
        assertThat(p.queryDigests()).isTrue();
    }

    @Test
    void queryDigestsMayBeTurnedOffAndAreWrittenBackOnlyWhenOff() {
        SluiceConfig off = ConfigLoader.parse(BASE + "query-digests: false\n");
        assertThat(off.process().queryDigests()).isFalse();
        assertThat(ConfigWriter.toYaml(off)).contains("\nquery-digests: false\n");
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(off)).process()).isEqualTo(off.process());
        assertThat(ConfigWriter.toYaml(ConfigLoader.parse(BASE + "query-digests: true\n")))
                .doesNotContain("query-digests");
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "query-digests: sometimes\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("query-digests: 'sometimes' must be true or false");
    }

    @Test
    void theKeysAreRead() {
        ProcessConfig p = ConfigLoader.parse(BASE + "shutdown-timeout: 1500ms\nlog-format: json\n").process();
        assertThat(p.shutdownTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(p.logFormat()).isEqualTo(LogFormat.JSON);
        assertThat(ConfigLoader.parse(BASE + "shutdown-timeout: 0s\n").process().shutdownTimeout()).isZero();
        assertThat(ConfigLoader.parse(BASE + "log-format: JSON\n").process().logFormat()).isEqualTo(LogFormat.JSON);
    }

    @Test
    void badValuesNameTheKeyAndWhatIsAllowed() {
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "shutdown-timeout: soon\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("shutdown-timeout: 'soon' is not a duration");
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "log-format: xml\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("log-format: 'xml' is not allowed; use one of text | json");
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "shutdown_timeout: 5s\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("shutdown-timeout, log-format");
    }

    @Test
    void aConfigurationWrittenBackKeepsThemAndOnlyWhenSet() {
        SluiceConfig set = ConfigLoader.parse(BASE + "shutdown-timeout: 2m\nlog-format: json\n");
        String yaml = ConfigWriter.toYaml(set);
        assertThat(yaml).contains("\nshutdown-timeout: 2m\n").contains("\nlog-format: json\n");
        assertThat(ConfigLoader.parse(yaml).process()).isEqualTo(set.process());
        assertThat(ConfigWriter.toYaml(ConfigLoader.parse(BASE))).doesNotContain("shutdown-timeout", "log-format");
    }
}
