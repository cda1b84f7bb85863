package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConfigDeltaTest {
    private static final String NODES = """
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312}
            """;
    private static final SluiceConfig BEFORE = ConfigLoader.parse(NODES + """
            endpoints:
              - {name: rw, listen: 127.0.0.1:6033}
              - {name: ro, listen: 127.0.0.1:6034, mode: read-only}
              - {name: old, listen: 127.0.0.1:6035}
            """);

    @Test
    void theSameConfigurationIsNoChange() {
        assertThat(ConfigDelta.between(BEFORE, BEFORE).isEmpty()).isTrue();
    }

    @Test
    void endpointsAndNodesAreAddedRemovedAndChanged() {
        SluiceConfig after = ConfigLoader.parse("""
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary}
                  - {name: ro1, address: 127.0.0.1:3312}
                  - {name: ro2, address: 127.0.0.1:3313}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, consistency: session}
                  - {name: ro, listen: 127.0.0.1:7034, mode: read-only}
                  - {name: new, listen: 127.0.0.1:6036}
                """);
        ConfigDelta d = ConfigDelta.between(BEFORE, after);
        assertThat(d.nodesAdded()).extracting(NodeConfig::name).containsExactly("ro2");
        assertThat(d.nodesRemoved()).isEmpty();
        assertThat(d.endpointsChanged()).extracting(EndpointConfig::name).containsExactly("rw");
        // A new address is a new listener: the old one stops, the new one starts.
        assertThat(d.endpointsRemoved()).containsExactlyInAnyOrder("ro", "old");
        assertThat(d.endpointsAdded()).extracting(EndpointConfig::name).containsExactly("ro", "new");
        assertThat(ConfigDelta.between(after, BEFORE).nodesRemoved()).containsExactly("ro2");
    }

    @Test
    void aNodeDoesNotChangeItsDefinitionWhileItRuns() {
        SluiceConfig moved = ConfigLoader.parse("""
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary}
                  - {name: ro1, address: 127.0.0.1:4312}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """);
        assertThatThrownBy(() -> ConfigDelta.between(BEFORE, moved)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("node 'ro1' differs").hasMessageContaining("remove it and add it again");
    }
}
