package dev.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.routing.policy.BalancerKind;
import dev.sluice.routing.policy.ConnectionPoolMode;
import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.policy.TimeoutAction;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {
    private static final String NODES = """
            monitor: {user: monitor, password: monitor, interval: 1s}
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312, role: replica, zone: a, capacity: 2}
              - {name: ro2, address: 127.0.0.1:3313}
            """;

    private static SluiceConfig parse(String endpoints) {
        return ConfigLoader.parse(NODES + endpoints);
    }

    @Test
    void theArchitectureExampleLoadsWithItsValues() {
        SluiceConfig c = parse("""
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:6033
                    mode: read-write
                    nodes: [primary, ro1, ro2]
                    weights: {primary: 0, ro1: 100, ro2: 200}
                    balancer: weighted
                    consistency: session
                    consistency-timeout: 25ms
                    consistency-timeout-action: error
                    max-replication-lag: 2s
                    min-reserved-nodes: 1
                    transaction-splitting: true
                    connection-pool: transaction
                    allow: [10.0.0.0/8]
                    max-connections: 50
                admin: {listen: 127.0.0.1:8033, token: secret}
                """);
        EndpointConfig ec = c.endpoints().get(0);
        EndpointPolicy e = ec.policy();
        assertThat(ec.listen()).isEqualTo(new HostPort("127.0.0.1", 6033));
        assertThat(e.weights()).isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 100, "ro2", 200)));
        assertThat(e.balancer()).isEqualTo(BalancerKind.WEIGHTED);
        assertThat(e.consistency()).isEqualTo(ConsistencyLevel.SESSION);
        assertThat(e.consistencyTimeout()).isEqualTo(Duration.ofMillis(25));
        assertThat(e.timeoutAction()).isEqualTo(TimeoutAction.ERROR);
        assertThat(e.maxReplicationLag()).isEqualTo(Duration.ofSeconds(2));
        assertThat(e.minReservedNodes()).isEqualTo(1);
        assertThat(e.transactionSplitting()).isTrue();
        assertThat(e.connectionPool()).isEqualTo(ConnectionPoolMode.TRANSACTION);
        assertThat(e.allow()).containsExactly("10.0.0.0/8");
        assertThat(e.maxConnections()).isEqualTo(50);
        assertThat(EndpointSettings.toJson(ec).toString()).contains("\"consistency-timeout\":\"25ms\"",
                "\"weights\":{\"primary\":0,\"ro1\":100,\"ro2\":200}");
        assertThat(c.admin().token()).isEqualTo("secret");
        assertThat(c.node("ro1").orElseThrow().capacity()).isEqualTo(2);
        assertThat(c.node("ro2").orElseThrow().role()).isEqualTo(NodeConfig.Role.REPLICA);
    }

    @Test
    void defaultsFollowTheSpec() {
        EndpointPolicy e = parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """).endpoints().get(0).policy();
        assertThat(e.mode()).isEqualTo(EndpointMode.READ_WRITE);
        assertThat(e.nodes()).as("no list: every node, also those added later").isEmpty();
        assertThat(e.weights()).isEqualTo(ReadWeights.AUTO);
        assertThat(e.balancer()).isEqualTo(BalancerKind.LEAST_ACTIVE);
        assertThat(e.consistency()).isEqualTo(ConsistencyLevel.EVENTUAL);
        assertThat(e.consistencyTimeout()).isEqualTo(Duration.ofMillis(10));
        assertThat(e.timeoutAction()).isEqualTo(TimeoutAction.PRIMARY);
        assertThat(e.maxReplicationLag()).isEqualTo(Duration.ofSeconds(30));
        assertThat(e.minReservedNodes()).isZero();
        assertThat(e.transactionSplitting()).isFalse();
        assertThat(e.connectionPool()).isEqualTo(ConnectionPoolMode.NONE);
    }

    @Test
    void readOnlyEndpointsTakeEveryNodeByDefault() {
        EndpointPolicy e = parse("""
                endpoints:
                  - {name: ro, listen: 127.0.0.1:6034, mode: read-only}
                """).endpoints().get(0).policy();
        assertThat(e.nodes()).isEmpty();
        assertThat(e.mode()).isEqualTo(EndpointMode.READ_ONLY);
    }

    @Test
    void unknownKeysAreNamedWithTheAllowedOnes() {
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, balancr: weighted}
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown key 'endpoints[0].balancr'")
                .hasMessageContaining("balancer");
        assertThatThrownBy(() -> ConfigLoader.parse(NODES + "endpoint: []\n"))
                .hasMessageContaining("unknown key 'endpoint'");
    }

    @Test
    void badValuesNameTheKeyAndTheAllowedValues() {
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, balancer: random}
                """)).hasMessageContaining("endpoints[0].balancer")
                .hasMessageContaining("least-active | weighted");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, nodes: [primary]}
                """)).hasMessageContaining("endpoint 'rw'").hasMessageContaining("replica");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, weights: {ro1: 10001}}
                """)).hasMessageContaining("endpoints[0].weights.ro1").hasMessageContaining("0..10000");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, nodes: [primary, ro9]}
                """)).hasMessageContaining("unknown node 'ro9'");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, consistency-timeout: soon}
                """)).hasMessageContaining("endpoints[0].consistency-timeout").hasMessageContaining("10ms");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: localhost}
                """)).hasMessageContaining("endpoints[0].listen");
    }

    @Test
    void aModificationIsValidatedLikeTheFile() throws Exception {
        SluiceConfig c = parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """);
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        EndpointConfig changed = EndpointSettings.modified(c.endpoints().get(0),
                json.readTree("{\"weights\": {\"primary\": 0, \"ro1\": 0, \"ro2\": 100}, \"balancer\": \"weighted\"}"),
                c.nodes());
        assertThat(changed.policy().balancer()).isEqualTo(BalancerKind.WEIGHTED);
        assertThat(changed.policy().weights()).isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 0, "ro2", 100)));
        assertThat(changed.listen()).isEqualTo(c.endpoints().get(0).listen());
        assertThatThrownBy(() -> EndpointSettings.modified(c.endpoints().get(0),
                json.readTree("{\"weights\": {\"ro1\": -5}}"), c.nodes()))
                .hasMessageContaining("rw.weights.ro1").hasMessageContaining("0..10000");
        assertThatThrownBy(() -> EndpointSettings.modified(c.endpoints().get(0),
                json.readTree("{\"colour\": \"blue\"}"), c.nodes()))
                .hasMessageContaining("unknown key 'rw.colour'");
    }

    @Test
    void duplicatesAndMissingPiecesAreRefused() {
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                  - {name: rw, listen: 127.0.0.1:6034}
                """)).hasMessageContaining("'rw' appears twice");
        assertThatThrownBy(() -> parse("endpoints: []\n")).hasMessageContaining("at least one endpoint");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                nodes:
                  - {name: a, address: 127.0.0.1:1, role: replica}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """)).hasMessageContaining("exactly one node must have role: primary");
    }
}
