package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Passwords and the admin token given by environment variable or file, and never written or shown. */
class SecretsTest {
    private static final String REST = """
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312, role: replica}
            endpoints:
              - {name: rw, listen: 127.0.0.1:6033}
            """;

    @TempDir
    Path dir;

    private SluiceConfig parse(String head, Map<String, String> environment) {
        return ConfigLoader.parse(head + REST, new SecretResolver(environment::get, Optional.of(dir)));
    }

    @Test
    void aPasswordFromTheEnvironmentIsItsValueAndNeverShown() {
        SluiceConfig c = parse("""
                monitor: {user: monitor, password: "${MONITOR_PASSWORD}"}
                """, Map.of("MONITOR_PASSWORD", "s3cret!"));
        Secret p = c.monitor().password();
        assertThat(p.value()).isEqualTo("s3cret!");
        assertThat(p.origin()).isEqualTo(Secret.Origin.ENVIRONMENT);
        assertThat(p.toString()).isEqualTo("${MONITOR_PASSWORD}");
        assertThat(c.toString()).doesNotContain("s3cret!");
    }

    @Test
    void aTokenAndAPasswordFromFilesRelativeToTheConfigurationDirectory() throws Exception {
        Files.writeString(dir.resolve("admin-token"), "tok-123\n");
        Files.createDirectories(dir.resolve("secrets"));
        Files.writeString(dir.resolve("secrets/app"), "pa ss");
        SluiceConfig c = parse("""
                admin: {listen: 127.0.0.1:8033, token-file: admin-token}
                users:
                  - {user: app, password-file: secrets/app}
                """, Map.of());
        assertThat(c.admin().token().value()).as("the file's final line break is not part of the token")
                .isEqualTo("tok-123");
        assertThat(c.users().get(0).password().value()).isEqualTo("pa ss");
        assertThat(c.toString()).doesNotContain("tok-123", "pa ss");
    }

    @Test
    void aConfigurationWrittenBackKeepsTheReferencesNotTheSecrets() throws Exception {
        Files.writeString(dir.resolve("admin-token"), "tok-123\n");
        SluiceConfig c = parse("""
                monitor: {user: monitor, password: "${MONITOR_PASSWORD}"}
                admin: {listen: 127.0.0.1:8033, token-file: admin-token}
                users:
                  - {user: app, password: plain-in-the-file}
                """, Map.of("MONITOR_PASSWORD", "s3cret!"));
        String yaml = ConfigWriter.toYaml(c);
        assertThat(yaml).contains("${MONITOR_PASSWORD}", "token-file: admin-token", "plain-in-the-file")
                .doesNotContain("s3cret!", "tok-123");
        assertThat(ConfigLoader.parse(yaml, new SecretResolver(Map.of("MONITOR_PASSWORD", "s3cret!")::get,
                Optional.of(dir)))).isEqualTo(c);
    }

    @Test
    void aMissingVariableOrFileStopsTheStartAndSaysWhich() {
        assertThatThrownBy(() -> parse("""
                monitor: {password: "${NOT_SET_HERE}"}
                """, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("monitor.password").hasMessageContaining("NOT_SET_HERE is not set");
        assertThatThrownBy(() -> parse("""
                admin: {token-file: no-such-file}
                """, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("admin.token-file").hasMessageContaining("no-such-file");
    }

    @Test
    void bothTheValueAndItsFileIsAMistake() throws Exception {
        Files.writeString(dir.resolve("pw"), "x");
        assertThatThrownBy(() -> parse("""
                monitor: {password: a, password-file: pw}
                """, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("give password or password-file, not both");
    }

    @Test
    void textThatOnlyLooksLikeAReferenceIsALiteral() {
        SluiceConfig c = parse("""
                monitor: {password: "a${B}c"}
                """, Map.of("B", "no"));
        assertThat(c.monitor().password().value()).isEqualTo("a${B}c");
    }
}
