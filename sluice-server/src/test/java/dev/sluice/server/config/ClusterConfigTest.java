package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {
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
    void theClusterSectionIsWrittenBackAsGiven() {
        SluiceConfig c = ConfigLoader.parse(BASE + "cluster: {etcd: [http://127.0.0.1:23790], name: a, prefix: /s}\n");
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c)).cluster()).isEqualTo(c.cluster());
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
