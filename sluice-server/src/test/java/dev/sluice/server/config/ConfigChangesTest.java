package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a configuration file read again (SIGHUP) asks of the running proxy (BEHAVIOUR §13). */
class ConfigChangesTest {
    private static final String FILE = """
            monitor: {user: monitor, password: monitor, interval: 1s}
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312, role: replica}
              - {name: ro2, address: 127.0.0.1:3313, role: replica}
            endpoints:
              - name: rw
                listen: 127.0.0.1:6033
                mode: read-write
                weights: {primary: 0, ro1: 100, ro2: 100}
              - {name: ro, listen: 127.0.0.1:6034, mode: read-only}
            admin: {listen: 127.0.0.1:8033}
            """;

    private static ConfigChanges from(String edited) {
        return ConfigChanges.between(ConfigLoader.parse(FILE), ConfigLoader.parse(edited));
    }

    @Test
    void theSameFileAsksNothing() {
        ConfigChanges c = from(FILE);
        assertThat(c.nothingToApply()).isTrue();
        assertThat(c.restartOnly()).isEmpty();
        assertThat(c.refusals()).isEmpty();
        assertThat(c.describe()).isEmpty();
    }

    @Test
    void aChangedWeightModifiesThatEndpointOnlyAndSaysWhatChanged() {
        ConfigChanges c = from(FILE.replace("ro1: 100, ro2: 100", "ro1: 100, ro2: 0"));
        assertThat(c.delta().endpointsChanged()).singleElement().satisfies(e -> {
            assertThat(e.name()).isEqualTo("rw");
            assertThat(e.policy().weights().toString()).contains("ro2=0");
        });
        assertThat(c.describe()).containsExactly(
                "endpoint 'rw': weights: {primary: 0, ro1: 100, ro2: 100} -> {primary: 0, ro1: 100, ro2: 0}");
        assertThat(c.refusals()).isEmpty();
    }

    @Test
    void aSettingBackToItsDefaultIsAChangeToo() {
        ConfigChanges c = from(FILE.replace("    weights: {primary: 0, ro1: 100, ro2: 100}\n",
                "    nodes: [primary, ro1]\n"));
        assertThat(c.describe()).containsExactly("endpoint 'rw': weights: {primary: 0, ro1: 100, ro2: 100} -> auto, "
                + "nodes: (default) -> [\"primary\",\"ro1\"]");
    }

    @Test
    void nodesAndEndpointsComeAndGoInTheOrderTheyCanBeMade() {
        ConfigChanges c = from(FILE.replace("  - {name: ro2, address: 127.0.0.1:3313, role: replica}\n",
                "  - {name: ro3, address: 127.0.0.1:3314, role: replica}\n")
                .replace("ro2: 100", "ro3: 50")
                .replace("  - {name: ro, listen: 127.0.0.1:6034, mode: read-only}\n",
                        "  - {name: reports, listen: 127.0.0.1:6035, mode: read-only}\n"));
        assertThat(c.delta().nodesAdded()).extracting(NodeConfig::name).containsExactly("ro3");
        assertThat(c.delta().nodesRemoved()).containsExactly("ro2");
        assertThat(c.delta().endpointsAdded()).extracting(EndpointConfig::name).containsExactly("reports");
        assertThat(c.delta().endpointsRemoved()).containsExactly("ro");
        assertThat(c.describe()).containsExactly("node 'ro3' added at 127.0.0.1:3314",
                "endpoint 'reports' added on 127.0.0.1:6035",
                "endpoint 'rw': weights: {primary: 0, ro1: 100, ro2: 100} -> {primary: 0, ro1: 100, ro3: 50}",
                "endpoint 'ro' removed", "node 'ro2' removed");
        assertThat(c.refusals()).isEmpty();
        // the running order, the new ones after it, as adding them one by one through the admin API would
        assertThat(c.target().nodes()).extracting(NodeConfig::name).containsExactly("primary", "ro1", "ro3");
        assertThat(c.target().endpoints()).extracting(EndpointConfig::name).containsExactly("rw", "reports");
    }

    @Test
    void whatTheAdminApiWouldRefuseRefusesTheWholeFile() {
        assertThat(from(FILE.replace("listen: 127.0.0.1:6033", "listen: 127.0.0.1:7033")).refusals())
                .singleElement().asString().startsWith("endpoint 'rw': listen cannot change while it runs");
        String newPrimary = FILE.replace("{name: primary, address: 127.0.0.1:3311, role: primary}",
                "{name: p2, address: 127.0.0.1:3311, role: primary}").replace("primary: 0", "p2: 0");
        assertThat(from(newPrimary).refusals()).containsExactly(
                "node 'p2': a new node cannot be the primary; a switchover moves the primary",
                "node 'primary' is the primary; it cannot be removed");
        assertThat(from("zone: a\n" + FILE).refusals()).singleElement().asString().startsWith("zone:");
    }

    @Test
    void rolesThatDifferFromTheRunningOnesKeepTheRunningOnesUntilARestart() {
        // The running configuration after a switchover to ro1, and a file that still names the old primary.
        SluiceConfig running = ConfigLoader.parse(FILE).withPrimary("ro1");
        ConfigChanges c = ConfigChanges.between(running, ConfigLoader.parse(FILE));
        assertThat(c.refusals()).isEmpty();
        assertThat(c.restartOnly()).containsExactly("node 'primary' (role: primary in the file, replica running)",
                "node 'ro1' (role: replica in the file, primary running)");
        assertThat(c.nothingToApply()).isTrue();
        assertThat(c.target().primary().orElseThrow().name()).isEqualTo("ro1");
    }

    @Test
    void sectionsReadOnlyAtStartAreNamedAndLeftAlone() {
        ConfigChanges c = from(FILE.replace("interval: 1s", "interval: 2s")
                .replace("admin: {listen: 127.0.0.1:8033}", "admin: {listen: 127.0.0.1:8034}")
                .replace("{name: ro1, address: 127.0.0.1:3312, role: replica}",
                        "{name: ro1, address: 127.0.0.1:3322, role: replica, capacity: 2}")
                + "limits: {idle-timeout: 1h}\nshutdown-timeout: 5s\nlog-format: json\n");
        assertThat(c.restartOnly()).containsExactly("monitor", "admin", "limits", "shutdown-timeout", "log-format",
                "node 'ro1' (address, capacity)");
        assertThat(c.refusals()).isEmpty();
        // capacity feeds weights: auto, but this endpoint's weights are explicit, so nothing changes live
        assertThat(c.nothingToApply()).isTrue();
        assertThat(c.target()).isEqualTo(ConfigLoader.parse(FILE));
    }

    @Test
    void aChangedClusterSectionWaitsForARestart() {
        String cluster = "cluster: {etcd: [http://127.0.0.1:23790], name: a, prefix: /s}\n";
        ConfigChanges c = ConfigChanges.between(ConfigLoader.parse(FILE + cluster),
                ConfigLoader.parse(FILE + cluster.replace("}", ", user: sluice, password: pw}")));
        assertThat(c.restartOnly()).containsExactly("cluster");
        assertThat(c.target().cluster()).isEqualTo(ConfigLoader.parse(FILE + cluster).cluster());
    }

    @Test
    void settingDifferencesListOnlyWhatDiffers() {
        var before = EndpointSettings.toJson(ConfigLoader.parse(FILE).endpoints().get(1));
        var after = EndpointSettings.toJson(ConfigLoader.parse(FILE.replace("mode: read-only}",
                "mode: read-only, max-replication-lag: 5s, allow: [10.0.0.0/8]}")).endpoints().get(1));
        assertThat(ConfigChanges.settingDifferences(before, after)).isEqualTo(List.of(
                "max-replication-lag: 30s -> 5s", "allow: [\"127.0.0.0/8\",\"::1/128\"] -> [\"10.0.0.0/8\"]"));
    }
}
