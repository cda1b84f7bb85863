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
import dev.sluice.server.net.HostPort;
import dev.sluice.server.net.NodeTls;
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
        assertThat(c.admin().token().value()).isEqualTo("secret");
        assertThat(c.node("ro1").orElseThrow().capacity()).isEqualTo(2);
        assertThat(c.node("ro2").orElseThrow().role()).isEqualTo(NodeConfig.Role.REPLICA);
    }

    @Test
    void aNodeIsDownAfterTwoMissedChecksUnlessToldOtherwise() {
        String endpoint = """
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """;
        assertThat(parse(endpoint).monitor().downAfter()).isEqualTo(2);
        assertThat(ConfigLoader.parse(NODES.replace("interval: 1s", "interval: 1s, down-after: 1") + endpoint)
                .monitor().schedule().downAfter()).isEqualTo(1);
        assertThatThrownBy(() -> ConfigLoader.parse(NODES.replace("interval: 1s", "interval: 1s, down-after: 0")
                + endpoint)).isInstanceOf(ConfigException.class).hasMessageContaining("down-after");
    }

    @Test
    void anEndpointPrefersSluicesOwnZoneOnlyWhenToldAndWhenSluiceHasOne() throws Exception {
        SluiceConfig c = ConfigLoader.parse("zone: a\n" + NODES + """
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, prefer-same-zone: true}
                  - {name: ro, listen: 127.0.0.1:6034, mode: read-only}
                """);
        assertThat(c.zone()).contains("a");
        assertThat(c.endpoints().get(0).policy().preferredZone()).contains("a");
        assertThat(c.endpoints().get(1).policy().preferredZone()).isEmpty();
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        assertThat(EndpointSettings.modified(c.endpoints().get(1), json.readTree("{\"prefer-same-zone\": true}"),
                c.nodes(), c.zone()).policy().preferredZone()).contains("a");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, prefer-same-zone: true}
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("endpoints[0].prefer-same-zone")
                .hasMessageContaining("zone: NAME");
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
    void transactionReplayIsOffUnlessAskedAndItsSizeIsBounded() {
        EndpointConfig off = parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """).endpoints().get(0);
        assertThat(off.replay()).isEqualTo(new TransactionReplaySettings(false, 1L << 20));
        EndpointConfig on = parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, transaction-replay: true, transaction-replay-max-size: 64k}
                """).endpoints().get(0);
        assertThat(on.replay()).isEqualTo(new TransactionReplaySettings(true, 64 * 1024));
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, transaction-replay-max-size: 2g}
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("endpoints[0].transaction-replay-max-size").hasMessageContaining("1..1g");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, transaction-replay: sometimes}
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("endpoints[0].transaction-replay");
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
    void oneNodesWeightChangesAndTheOthersKeepTheirs() throws Exception {
        SluiceConfig c = parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                  - {name: custom, listen: 127.0.0.1:6034, weights: {primary: 10, ro1: 100, ro2: 200}}
                """);
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        // From auto: ro1 has capacity 2 in NODES, so auto gave it 200; ro2 100; the primary 0.
        assertThat(EndpointSettings.modified(c.endpoints().get(0), json.readTree("{\"weights.ro2\": 50}"), c.nodes())
                .policy().weights()).isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 200, "ro2", 50)));
        assertThat(EndpointSettings.modified(c.endpoints().get(1), json.readTree("{\"weights.ro1\": 0}"), c.nodes())
                .policy().weights()).isEqualTo(new ReadWeights.Custom(Map.of("primary", 10, "ro1", 0, "ro2", 200)));
        assertThat(EndpointSettings.modified(c.endpoints().get(1),
                json.readTree("{\"weights.ro1\": 7, \"weights\": {\"primary\": 0, \"ro1\": 1, \"ro2\": 1}}"), c.nodes())
                .policy().weights()).as("the one node's weight applies over a whole map given with it")
                .isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 7, "ro2", 1)));
        assertThatThrownBy(() -> EndpointSettings.modified(c.endpoints().get(1),
                json.readTree("{\"weights.ro9\": 5}"), c.nodes())).hasMessageContaining("ro9");
        assertThatThrownBy(() -> EndpointSettings.modified(c.endpoints().get(1),
                json.readTree("{\"weights.ro1\": 20000}"), c.nodes())).hasMessageContaining("0..10000");
        assertThatThrownBy(() -> EndpointSettings.modified(c.endpoints().get(1),
                json.readTree("{\"pool.max\": 5}"), c.nodes())).hasMessageContaining("only weights.NODE");
    }

    @Test
    void duplicatesAndMissingPiecesAreRefused() {
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                  - {name: rw, listen: 127.0.0.1:6034}
                """)).hasMessageContaining("'rw' appears twice");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                  - {name: ro, listen: 127.0.0.1:6033, mode: read-only, nodes: [ro1]}
                """)).hasMessageContaining("listen address '127.0.0.1:6033' appears twice");
        assertThatThrownBy(() -> parse("endpoints: []\n")).hasMessageContaining("at least one endpoint");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                nodes:
                  - {name: a, address: 127.0.0.1:1, role: replica}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """)).hasMessageContaining("exactly one node must have role: primary");
    }

    @Test
    void severalEndpointsMayAskForAnyFreePort() {
        SluiceConfig c = parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:0}
                  - {name: ro, listen: 127.0.0.1:0, mode: read-only, nodes: [ro1]}
                """);
        assertThat(c.endpoints()).extracting(EndpointConfig::name).containsExactly("rw", "ro");
    }

    // ---- security (BEHAVIOUR §9): tls:, node TLS, require-tls, limits, users full-auth ----

    @Test
    void securityDefaultsAreSafe() {
        SluiceConfig c = parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """);
        assertThat(c.tls()).isEqualTo(TlsConfig.DEFAULT);
        assertThat(c.tls().enabled()).isTrue();
        assertThat(c.node("primary").orElseThrow().tls()).isEqualTo(NodeTls.PREFERRED);
        assertThat(c.node("primary").orElseThrow().tlsCa()).isEmpty();
        assertThat(c.endpoints().get(0).requireTls()).isFalse();
        assertThat(c.limits().sessionMemory()).isEqualTo(4L << 20);
        assertThat(c.limits().loginFailures()).isEqualTo(new LoginFailureLimit(10, Duration.ofMinutes(1),
                Duration.ofMinutes(1)));
        assertThat(c.limits().idleTimeout()).isEqualTo(Duration.ofHours(8));
    }

    @Test
    void securityKeysAreRead() {
        SluiceConfig c = ConfigLoader.parse("""
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary, tls: required, tls-ca: /etc/ca.pem}
                  - {name: ro1, address: 127.0.0.1:3312, tls: off}
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, require-tls: true}
                users:
                  - {user: app, password: secret, full-auth: true}
                  - {user: other, password: x}
                limits:
                  idle-timeout: 30s
                  session-memory: 16m
                  login-failures: {max: 3, window: 10s, block: 2m}
                tls: {cert: server.pem, key: server-key.pem, self-signed-dir: /var/lib/sluice}
                """);
        assertThat(c.node("primary").orElseThrow().tls()).isEqualTo(NodeTls.REQUIRED);
        assertThat(c.node("primary").orElseThrow().tlsCa()).contains("/etc/ca.pem");
        assertThat(c.node("ro1").orElseThrow().tls()).isEqualTo(NodeTls.OFF);
        assertThat(c.endpoints().get(0).requireTls()).isTrue();
        assertThat(EndpointSettings.toJson(c.endpoints().get(0)).get("require-tls").asBoolean()).isTrue();
        assertThat(c.users()).containsExactly(new UserConfig("app", "secret", true), new UserConfig("other", "x", false));
        assertThat(c.limits().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.limits().sessionMemory()).isEqualTo(16L << 20);
        assertThat(c.limits().loginFailures()).isEqualTo(new LoginFailureLimit(3, Duration.ofSeconds(10),
                Duration.ofMinutes(2)));
        assertThat(c.tls()).isEqualTo(new TlsConfig(true, java.util.Optional.of("server.pem"),
                java.util.Optional.of("server-key.pem"), java.util.Optional.of("/var/lib/sluice")));
        assertThat(ConfigLoader.resolve(java.util.Optional.of(java.nio.file.Path.of("/etc/sluice")), "server.pem"))
                .isEqualTo(java.nio.file.Path.of("/etc/sluice/server.pem"));
        assertThat(ConfigLoader.resolve(java.util.Optional.of(java.nio.file.Path.of("/etc/sluice")), "/abs.pem"))
                .isEqualTo(java.nio.file.Path.of("/abs.pem"));
        assertThat(ConfigLoader.parse(NODES + """
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                tls: {enabled: false}
                limits: {login-failures: {max: 0}}
                """).tls().enabled()).isFalse();
    }

    @Test
    void badSecurityValuesNameTheKeyAndTheAllowedValues() {
        String endpoint = """
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033}
                """;
        assertThatThrownBy(() -> ConfigLoader.parse("""
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary, tls: maybe}
                """ + endpoint)).hasMessageContaining("nodes[0].tls").hasMessageContaining("required | preferred | off");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary, tls: off, tls-ca: ca.pem}
                """ + endpoint)).hasMessageContaining("tls-ca is given but tls is off");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                nodes:
                  - {name: primary, address: 127.0.0.1:3311, role: primary, tls-verify: true}
                """ + endpoint)).hasMessageContaining("unknown key 'nodes[0].tls-verify'").hasMessageContaining("tls-ca");
        assertThatThrownBy(() -> parse("""
                endpoints:
                  - {name: rw, listen: 127.0.0.1:6033, require-tls: sometimes}
                """)).hasMessageContaining("endpoints[0].require-tls").hasMessageContaining("true or false");
        assertThatThrownBy(() -> parse(endpoint + "tls: {cert: a.pem}\n"))
                .hasMessageContaining("tls: give both cert and key");
        assertThatThrownBy(() -> parse(endpoint + "tls: {certificate: a.pem}\n"))
                .hasMessageContaining("unknown key 'tls.certificate'").hasMessageContaining("self-signed-dir");
        assertThatThrownBy(() -> parse(endpoint + "limits: {session-memory: 1k}\n"))
                .hasMessageContaining("limits.session-memory").hasMessageContaining("64k..1024g");
        assertThatThrownBy(() -> parse(endpoint + "limits: {login-failures: {max: 5, window: 0s}}\n"))
                .hasMessageContaining("limits.login-failures.window").hasMessageContaining("longer than 0");
        assertThatThrownBy(() -> parse(endpoint + "limits: {login-failures: {max: 5, blocked: 1m}}\n"))
                .hasMessageContaining("unknown key 'limits.login-failures.blocked'").hasMessageContaining("block");
        assertThatThrownBy(() -> parse(endpoint + "users: [{user: a, password: b, full-auth: yes please}]\n"))
                .hasMessageContaining("users[0].full-auth");
    }
}
