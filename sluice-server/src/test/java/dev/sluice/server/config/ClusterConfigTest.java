package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterConfigTest {
    @TempDir
    Path dir;

    private static final String BASE = """
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312}
            endpoints:
              - {name: rw, listen: 127.0.0.1:6033}
            """;

    @Test
    void withoutClusterSectionThereIsNoClusterMode() {
        assertThat(ConfigLoader.parse(BASE).cluster()).isEmpty();
    }

    @Test
    void theContractsFormLoads() {
        ClusterConfig c = ConfigLoader.parse(BASE + """
                cluster: {etcd: [http://127.0.0.1:23790, http://10.0.0.5:2379], name: sluice-a, prefix: /sluice/prod}
                """).cluster().orElseThrow();
        assertThat(c.etcd()).containsExactly(URI.create("http://127.0.0.1:23790"), URI.create("http://10.0.0.5:2379"));
        assertThat(c.name()).isEqualTo("sluice-a");
        assertThat(c.configKey()).isEqualTo("/sluice/prod/config");
        assertThat(c.instanceKey()).isEqualTo("/sluice/prod/instances/sluice-a");
    }

    @Test
    void everyBadValueIsRefusedWithWhatIsExpected() {
        List<String[]> cases = List.of(
                new String[] {"{etcd: [], name: a, prefix: /p}", "cluster.etcd: give at least one etcd URL"},
                new String[] {"{etcd: [127.0.0.1:2379], name: a, prefix: /p}", "is not an etcd client URL"},
                new String[] {"{etcd: [ftp://h:1], name: a, prefix: /p}", "is not an etcd client URL"},
                new String[] {"{etcd: [http://h], name: a, prefix: /p}", "is not an etcd client URL"},
                new String[] {"{etcd: [http://h:1], prefix: /p}", "name"},
                new String[] {"{etcd: [http://h:1], name: 'a/b', prefix: /p}", "is not an instance name"},
                new String[] {"{etcd: [http://h:1], name: a, prefix: p}", "is not a key prefix"},
                new String[] {"{etcd: [http://h:1], name: a, prefix: /p/}", "is not a key prefix"},
                new String[] {"{etcd: [http://h:1], name: a, prefix: /p, ttl: 3}", "ttl"});
        for (String[] c : cases) {
            assertThatThrownBy(() -> ConfigLoader.parse(BASE + "cluster: " + c[0] + "\n"))
                    .as(c[0]).isInstanceOf(ConfigException.class).hasMessageContaining(c[1]);
        }
    }

    @Test
    void tlsAndALoginTowardEtcdLoad() {
        ClusterConfig c = ConfigLoader.parse(BASE + """
                cluster:
                  etcd: [https://10.0.0.5:2379, https://10.0.0.6:2379]
                  name: a
                  prefix: /s
                  tls: {ca: certs/etcd-ca.pem, cert: /etc/sluice/client.pem, key: client-key.pem}
                  user: sluice
                  password: pw
                """).cluster().orElseThrow();
        assertThat(c.tls()).contains(new EtcdTls("certs/etcd-ca.pem", Optional.of("/etc/sluice/client.pem"),
                Optional.of("client-key.pem")));
        assertThat(c.login()).contains(new EtcdLogin("sluice", Secret.literal("pw")));
        ClusterConfig caOnly = ConfigLoader.parse(BASE + """
                cluster: {etcd: [https://10.0.0.5:2379], name: a, prefix: /s, tls: {ca: ca.pem}}
                """).cluster().orElseThrow();
        assertThat(caOnly.tls().orElseThrow().hasClientCertificate()).isFalse();
        assertThat(caOnly.login()).isEmpty();
    }

    @Test
    void everyBadTlsOrLoginIsRefusedWithWhatToWrite() {
        List<String[]> cases = List.of(
                new String[] {"{etcd: [https://h:1], name: a, prefix: /p}",
                    "cluster.tls: the etcd URLs are https://, so give tls: {ca: FILE}"},
                new String[] {"{etcd: [https://h:1, http://h:2], name: a, prefix: /p, tls: {ca: c}}",
                    "cluster.etcd: mixes http:// and https:// URLs"},
                new String[] {"{etcd: [http://h:1], name: a, prefix: /p, tls: {ca: c}}",
                    "cluster.tls: given, but the etcd URLs are http://"},
                new String[] {"{etcd: [https://h:1], name: a, prefix: /p, tls: {cert: c, key: k}}",
                    "cluster.tls.ca is required"},
                new String[] {"{etcd: [https://h:1], name: a, prefix: /p, tls: {ca: c, cert: c}}",
                    "cluster.tls: give both cert and key"},
                new String[] {"{etcd: [https://h:1], name: a, prefix: /p, tls: {ca: c, key: k}}",
                    "cluster.tls: give both cert and key"},
                new String[] {"{etcd: [https://h:1], name: a, prefix: /p, tls: {ca: c, verify: no}}",
                    "unknown key 'cluster.tls.verify'; allowed keys in cluster.tls: ca, cert, key"},
                new String[] {"{etcd: [https://h:1], name: a, prefix: /p, tls: c}", "cluster.tls must be a mapping"},
                new String[] {"{etcd: [http://h:1], name: a, prefix: /p, user: u}",
                    "cluster.password: the etcd user 'u' needs its password"},
                new String[] {"{etcd: [http://h:1], name: a, prefix: /p, password: pw}",
                    "cluster.user: a password is given without the etcd user"},
                new String[] {"{etcd: [http://h:1], name: a, prefix: /p, user: u, password: p, password-file: f}",
                    "cluster.password: give password or password-file, not both"});
        for (String[] c : cases) {
            assertThatThrownBy(() -> ConfigLoader.parse(BASE + "cluster: " + c[0] + "\n"))
                    .as(c[0]).isInstanceOf(ConfigException.class).hasMessageContaining(c[1]);
        }
    }

    @Test
    void theEtcdPasswordIsASecretNeverWrittenBackNorShown() throws Exception {
        Files.writeString(dir.resolve("etcd-password"), "from-a-file\n");
        String tls = "tls: {ca: ca.pem, cert: client.pem, key: client-key.pem}";
        SluiceConfig fromEnvironment = ConfigLoader.parse(BASE + "cluster: {etcd: [https://h:1], name: a, prefix: /s, "
                + tls + ", user: sluice, password: \"${ETCD_PASSWORD}\"}\n",
                new SecretResolver(Map.of("ETCD_PASSWORD", "from-the-environment")::get, Optional.of(dir)));
        SluiceConfig fromFile = ConfigLoader.parse(BASE + "cluster: {etcd: [https://h:1], name: a, prefix: /s, "
                + tls + ", user: sluice, password-file: etcd-password}\n",
                new SecretResolver(Map.<String, String>of()::get, Optional.of(dir)));
        assertThat(fromEnvironment.cluster().orElseThrow().login().orElseThrow().password().value())
                .isEqualTo("from-the-environment");
        assertThat(fromFile.cluster().orElseThrow().login().orElseThrow().password().value())
                .as("the file's final line break is not part of the password").isEqualTo("from-a-file");
        String written = ConfigWriter.toYaml(fromEnvironment) + ConfigWriter.toYaml(fromFile);
        assertThat(written).contains("${ETCD_PASSWORD}", "password-file: etcd-password", "user: sluice")
                .doesNotContain("from-the-environment", "from-a-file");
        assertThat(fromEnvironment.toString() + fromFile).doesNotContain("from-the-environment", "from-a-file");
    }

    @Test
    void theClusterSectionIsWrittenBackAsGiven() {
        SluiceConfig c = ConfigLoader.parse(BASE + "cluster: {etcd: [http://127.0.0.1:23790], name: a, prefix: /s}\n");
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c)).cluster()).isEqualTo(c.cluster());
    }

    @Test
    void tlsAndTheLoginAreWrittenBackAsGiven() throws Exception {
        Files.writeString(dir.resolve("etcd-password"), "pw");
        SecretResolver secrets = new SecretResolver(Map.of("ETCD_PASSWORD", "pw")::get, Optional.of(dir));
        for (String cluster : List.of(
                "{etcd: [https://10.0.0.5:2379], name: a, prefix: /s, tls: {ca: certs/ca.pem}}",
                "{etcd: [https://10.0.0.5:2379], name: a, prefix: /s, tls: {ca: ca.pem, cert: c.pem, key: k.pem}, "
                        + "user: sluice, password-file: etcd-password}",
                "{etcd: [http://10.0.0.5:2379], name: a, prefix: /s, user: sluice, password: \"${ETCD_PASSWORD}\"}",
                "{etcd: [http://10.0.0.5:2379], name: a, prefix: /s, user: sluice, password: in-the-file}")) {
            SluiceConfig c = ConfigLoader.parse(BASE + "cluster: " + cluster + "\n", secrets);
            assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c), secrets).cluster()).as(cluster)
                    .isEqualTo(c.cluster());
        }
    }

    @Test
    void theSharedPartRoundTripsAndKeepsTheLocalSections() {
        SluiceConfig local = ConfigLoader.parse(BASE + """
                admin: {listen: 127.0.0.1:9033}
                cluster: {etcd: [http://127.0.0.1:23790], name: a, prefix: /s}
                """);
        SluiceConfig other = ConfigLoader.parse("""
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary}
                  - {name: ro1, address: 127.0.0.1:3312}
                  - {name: ro2, address: 127.0.0.1:3313, capacity: 3}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, consistency: session}
                  - {name: ro, listen: 127.0.0.1:6034, mode: read-only, weights: {ro1: 1, ro2: 9}}
                """);
        String shared = ConfigWriter.sharedYaml(other);
        SluiceConfig merged = ConfigLoader.withShared(local, shared);
        assertThat(merged.nodes()).isEqualTo(other.nodes());
        assertThat(merged.endpoints()).isEqualTo(other.endpoints());
        assertThat(merged.admin()).isEqualTo(local.admin());
        assertThat(merged.cluster()).isEqualTo(local.cluster());
    }

    @Test
    void theSharedPartGetsTheFilesChecks() {
        SluiceConfig local = ConfigLoader.parse(BASE);
        assertThatThrownBy(() -> ConfigLoader.withShared(local, """
                nodes: [{name: primary, address: 127.0.0.1:3311, role: primary}]
                endpoints: [{name: rw, listen: 127.0.0.1:6033, nodes: [primary, ro9]}]
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("unknown node 'ro9'");
        assertThatThrownBy(() -> ConfigLoader.withShared(local, BASE + "admin: {listen: 127.0.0.1:1}\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("admin");
        assertThatThrownBy(() -> ConfigLoader.withShared(local, "nodes: [: ["))
                .isInstanceOf(ConfigException.class).hasMessageContaining("not valid YAML");
    }
}
