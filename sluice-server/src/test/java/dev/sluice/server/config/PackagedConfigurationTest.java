package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.policy.EndpointMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The commented configuration the distribution ships as conf/sluice.yaml loads as it is. */
class PackagedConfigurationTest {

    @Test
    void theShippedConfigurationIsValidAndSaysWhatItSays() {
        SluiceConfig c = ConfigLoader.load(packaged());
        assertThat(c.endpoints()).extracting(EndpointConfig::name).containsExactly("rw", "ro");
        assertThat(c.endpoints().get(1).policy().mode()).isEqualTo(EndpointMode.READ_ONLY);
        assertThat(c.process().shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.process().logFormat()).isEqualTo(ProcessConfig.LogFormat.TEXT);
        assertThat(c.primary()).hasValueSatisfying(p -> assertThat(p.name()).isEqualTo("primary"));
    }

    private static Path packaged() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("packaging/conf/sluice.yaml"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("packaging/conf/sluice.yaml above the working directory").isNotNull();
        return dir.resolve("packaging/conf/sluice.yaml");
    }
}
