package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.server.net.NodeTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigWriterTest {
    private static final String EVERYTHING = """
            monitor: {user: watcher, password: "0123", interval: 500ms, connect-timeout: 2s, query-timeout: 250ms, down-after: 3, switchover-timeout: 4s}
            replication: {user: repl, password: "r'pl"}
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: "[::1]:3312", role: replica, zone: "yes", capacity: 3}
              - {name: ro2, address: db-2.example:3313, role: replica, zone: "#a: b", tls: required, tls-ca: certs/ca.pem}
              - {name: ro3, address: 127.0.0.1:3314, role: replica, tls: off}
            endpoints:
              - name: rw
                listen: 127.0.0.1:6033
                mode: read-write
                nodes: [primary, ro1, ro2]
                weights: {primary: 0, ro1: 100, ro2: 10000}
                balancer: weighted
                consistency: session
                consistency-timeout: 25ms
                consistency-timeout-action: error
                max-replication-lag: 2m
                min-reserved-nodes: 1
                transaction-splitting: true
                connection-pool: transaction
                allow: [10.0.0.0/8, "::1/128", "fe80::/10"]
                max-connections: 50
                require-tls: true
                pool-max-connections: 7
                pool-idle-timeout: 3s
                pool-wait-timeout: 250ms
                transaction-replay: true
                transaction-replay-max-size: 256k
              - name: ro
                listen: "[::]:6034"
                mode: read-only
                nodes: [ro1, ro2]
                max-replication-lag: 1h
                prefer-same-zone: true
            zone: "yes"
            admin: {listen: 0.0.0.0:8033, token: "tok: en # not a comment"}
            users:
              - {user: app, password: "true", full-auth: true}
              - {user: "null", password: ""}
            limits:
              handshake-timeout: 5s
              idle-timeout: 30m
              max-packet-size: 16m
              backend-connect-timeout: 1500ms
              io-threads: 255
              session-memory: 8m
              login-failures: {max: 3, window: 10s, block: 2m}
            tls: {enabled: true, cert: /etc/sluice/cert.pem, key: /etc/sluice/key.pem, self-signed-dir: /var/lib/sluice}
            """;

    @Test
    void everySettingSurvivesTheRoundTrip() {
        SluiceConfig original = ConfigLoader.parse(EVERYTHING);
        String yaml = ConfigWriter.toYaml(original);
        SluiceConfig reread = ConfigLoader.parse(yaml);
        assertThat(reread).as(yaml).isEqualTo(original);
        // Spot checks that the comparison above compares what matters.
        assertThat(reread.endpoints().get(0).policy().weights())
                .isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 100, "ro2", 10_000)));
        assertThat(reread.endpoints().get(0).policy().consistencyTimeout()).isEqualTo(Duration.ofMillis(25));
        assertThat(reread.limits().maxPacketSize()).isEqualTo(16L << 20);
        assertThat(reread.endpoints().get(0).replay()).isEqualTo(new TransactionReplaySettings(true, 256 * 1024));
        assertThat(reread.limits().ioThreads()).isEqualTo(255);
        assertThat(reread.monitor().password().value()).isEqualTo("0123");
        assertThat(reread.monitor().downAfter()).isEqualTo(3);
        assertThat(reread.monitor().switchoverTimeout()).isEqualTo(Duration.ofSeconds(4));
        assertThat(reread.replication().map(r -> r.user() + ":" + r.password().value())).contains("repl:r'pl");
        assertThat(reread.zone()).contains("yes");
        assertThat(reread.endpoints().get(1).policy().preferredZone()).contains("yes");
        assertThat(reread.admin().token().value()).isEqualTo("tok: en # not a comment");
        assertThat(reread.users().get(0).password().value()).isEqualTo("true");
        assertThat(reread.users().get(0).fullAuth()).isTrue();
        assertThat(reread.nodes().get(2).tls()).isEqualTo(NodeTls.REQUIRED);
        assertThat(reread.nodes().get(3).tls()).isEqualTo(NodeTls.OFF);
        assertThat(reread.limits().loginFailures().max()).isEqualTo(3);
        assertThat(reread.tls().cert()).contains("/etc/sluice/cert.pem");
    }

    @Test
    void turningTlsOffSurvivesTheRoundTrip() {
        SluiceConfig original = ConfigLoader.parse(EVERYTHING.replace(
                "tls: {enabled: true, cert: /etc/sluice/cert.pem, key: /etc/sluice/key.pem, self-signed-dir: /var/lib/sluice}",
                "tls: {enabled: false}"));
        assertThat(original.tls().enabled()).isFalse();
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(original))).isEqualTo(original);
    }

    @Test
    void theExampleConfigurationSurvivesAndKeepsItsShape() throws Exception {
        SluiceConfig example = ConfigLoader.load(exampleFile());
        String yaml = ConfigWriter.toYaml(example);
        assertThat(ConfigLoader.parse(yaml)).isEqualTo(example);
        assertThat(yaml).startsWith("# Written by Sluice")
                .contains("monitor:\n  user: monitor\n", "\nnodes:\n  - name: primary\n", "\nendpoints:\n  - name: rw\n",
                        "    consistency-timeout: 10ms\n", "\nadmin:\n  listen: 127.0.0.1:8033\n  token: \"\"\n")
                // Sections left at their defaults stay out, as in the example.
                .doesNotContain("limits:", "users:", "connect-timeout", "down-after", "switchover-timeout", "\nzone:",
                        "prefer-same-zone", "---");
    }

    private static Path exampleFile() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("examples/sluice.yaml"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("examples/sluice.yaml above the working directory").isNotNull();
        return dir.resolve("examples/sluice.yaml");
    }

    @Test
    void writeReplacesTheFileWholeAndLeavesNoTemporaryFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, "old content that is not a configuration");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        SluiceConfig config = ConfigLoader.parse(EVERYTHING);

        ConfigWriter.write(config, file);

        assertThat(ConfigLoader.load(file)).isEqualTo(config);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-r-----"));
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void aNewFileIsOwnerOnlyBecauseItHoldsPasswords(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("new.yaml");
        ConfigWriter.write(ConfigLoader.parse(EVERYTHING), file);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void aSymbolicLinkIsFollowedNotReplaced(@TempDir Path dir) throws Exception {
        Path real = Files.createDirectory(dir.resolve("etc")).resolve("sluice.yaml");
        Files.writeString(real, "old");
        Path link = Files.createSymbolicLink(dir.resolve("sluice.yaml"), real);
        SluiceConfig config = ConfigLoader.parse(EVERYTHING);

        ConfigWriter.write(config, link);

        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(ConfigLoader.load(real)).isEqualTo(config);
    }

    @Test
    void sizesUseTheLargestExactUnit() {
        assertThat(ConfigWriter.size(1L << 30)).isEqualTo("1g");
        assertThat(ConfigWriter.size(16L << 20)).isEqualTo("16m");
        assertThat(ConfigWriter.size(1536)).isEqualTo("1536");
        assertThat(ConfigWriter.size(3072)).isEqualTo("3k");
        assertThat(ConfigValues.size("x", ConfigWriter.size(123_456_789))).isEqualTo(123_456_789);
    }
}
