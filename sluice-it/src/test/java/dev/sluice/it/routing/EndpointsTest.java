package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.protocol.response.ErrorCodes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §1: one proxy, several endpoints, each with its own node set, mode and weights. Read-write
 * endpoints split by their own weights and send reads to the primary when no replica of theirs can
 * take them; read-only endpoints bind each connection to one of their replicas (weighted
 * round-robin), refuse writes with a clear error, and refuse the connection when no replica is usable.
 */
class EndpointsTest {
    private static final String DB = "it_routing_endpoints";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;
    private static long primaryId;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        primaryId = cluster.serverIdOf(cluster.primary());
        cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB, "CREATE DATABASE " + DB,
                "CREATE TABLE " + DB + ".t (id INT AUTO_INCREMENT PRIMARY KEY, sid INT, via VARCHAR(20))");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.start(cluster, """
                endpoints:
                  - name: app_a
                    listen: 127.0.0.1:0
                    mode: read-write
                    nodes: [primary, ro1, ro2]
                    weights: {primary: 0, ro1: 100, ro2: 200}
                    balancer: weighted
                  - name: app_b
                    listen: 127.0.0.1:0
                    mode: read-write
                    nodes: [primary, ro3]
                    weights: {primary: 0, ro3: 100}
                  - name: no_readable_replica
                    listen: 127.0.0.1:0
                    mode: read-write
                    nodes: [primary, ro1]
                    weights: {primary: 0, ro1: 0}
                  - name: reports
                    listen: 127.0.0.1:0
                    mode: read-only
                    nodes: [ro1, ro2]
                    weights: auto
                  - name: reports_weighted
                    listen: 127.0.0.1:0
                    mode: read-only
                    nodes: [ro2, ro3]
                    weights: {ro2: 100, ro3: 200}
                  - name: reports_ro3
                    listen: 127.0.0.1:0
                    mode: read-only
                    nodes: [ro3]
                """);
        AdminView.awaitReadable(sluice, "app_a", "ro1", "ro2");
        AdminView.awaitReadable(sluice, "app_b", "ro3");
        AdminView.awaitReadable(sluice, "reports", "ro1", "ro2");
        AdminView.awaitReadable(sluice, "reports_weighted", "ro2", "ro3");
        AdminView.awaitReadable(sluice, "reports_ro3", "ro3");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB);
        } finally {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void eachReadWriteEndpointReadsFromItsOwnReplicasByItsOwnWeights() throws Exception {
        assertThat(readsOfOneClient("app_a", 30)).as("app_a: ro1 100, ro2 200, weighted")
                .isEqualTo(Map.of("ro1", 10L, "ro2", 20L));
        assertThat(readsOfOneClient("app_b", 10)).as("app_b: ro3 only").isEqualTo(Map.of("ro3", 10L));
        for (String endpoint : List.of("app_a", "app_b")) {
            try (Connection c = DriverManager.getConnection(sluice.mariadbUrl(endpoint, "")); Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + DB + ".t (sid, via) VALUES (@@server_id, '" + endpoint + "')");
            }
            assertThat(cluster.queryString(cluster.primary(), "SELECT sid FROM " + DB + ".t WHERE via = '" + endpoint + "'"))
                    .as("where a write through " + endpoint + " ran").isEqualTo(Long.toString(primaryId));
        }
    }

    @Test
    void aReadWriteEndpointWhoseReplicasHaveWeightZeroReadsFromThePrimary() throws Exception {
        assertThat(readsOfOneClient("no_readable_replica", 10)).isEqualTo(Map.of("primary", 10L));
    }

    @Test
    void aReadWriteEndpointWhoseOnlyReplicaBreaksReadsFromThePrimaryAndAReadOnlyOneRefusesConnections()
            throws Exception {
        assertThat(readsOfOneClient("app_b", 4)).isEqualTo(Map.of("ro3", 4L));
        cluster.stopReplication(cluster.node("ro3"));
        try {
            await("reads of app_b move to the primary once the monitor sees ro3's replication stopped")
                    .atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> readsOfOneClient("app_b", 4).equals(Map.of("primary", 4L)));
            try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("app_b", ""));
                    Statement s = c.createStatement()) {
                for (int i = 0; i < 5; i++) {
                    assertThat(names.where(s, "SELECT @@server_id")).as("a read, no usable replica").isEqualTo("primary");
                }
            }
            assertThatThrownBy(() -> DriverManager.getConnection(sluice.mariadbUrl("reports_ro3", "")).close())
                    .as("a read-only endpoint with no usable replica")
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("endpoint 'reports_ro3' has no usable replica");
        } finally {
            cluster.startReplication(cluster.node("ro3"));
            cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        }
        await("ro3 takes app_b's reads again").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> readsOfOneClient("app_b", 4).equals(Map.of("ro3", 4L)));
    }

    @Test
    void aReadOnlyEndpointBindsEachConnectionToOneOfItsReplicasRoundRobin() throws Exception {
        assertThat(connectionsPerReplica("reports", 6)).as("reports: ro1, ro2 with equal weights")
                .isEqualTo(Map.of("ro1", 3L, "ro2", 3L));
        assertThat(connectionsPerReplica("reports_weighted", 6))
                .as(() -> "reports_weighted: ro2 100, ro3 200; nodes as Sluice saw them then: " + nodesNow())
                .isEqualTo(Map.of("ro2", 2L, "ro3", 4L));
    }

    @Test
    void aReadOnlyEndpointRefusesWritesWithAClearErrorAndKeepsTheConnection() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("reports", "")); Statement s = c.createStatement()) {
            String replica = names.where(s, "SELECT @@server_id");
            for (String write : List.of(
                    "INSERT INTO " + DB + ".t (sid, via) VALUES (1, 'reports')",
                    "UPDATE " + DB + ".t SET sid = 0",
                    "DELETE FROM " + DB + ".t",
                    "REPLACE INTO " + DB + ".t (id, sid) VALUES (1, 1)",
                    "CREATE TABLE " + DB + ".made_on_reports (n INT)",
                    "DROP TABLE " + DB + ".t",
                    "TRUNCATE TABLE " + DB + ".t")) {
                assertThatThrownBy(() -> s.execute(write)).as(write).isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getErrorCode()).as("error code of " + write).isEqualTo(ErrorCodes.ER_OPTION_PREVENTS_STATEMENT);
                    assertThat(e.getSQLState()).isEqualTo("HY000");
                    assertThat(e.getMessage()).contains("endpoint 'reports' is read-only: writes are not accepted here");
                });
            }
            assertThat(names.where(s, "SELECT @@server_id")).as("the connection still reads, on its replica")
                    .isEqualTo(replica);
        }
        assertThat(cluster.queryString(cluster.primary(), "SELECT COUNT(*) FROM " + DB + ".t WHERE via = 'reports'"))
                .isEqualTo("0");
    }

    @Test
    void aSessionSetPreparedOnAReadOnlyEndpointHoldsOnTheConnectionsReplica() throws Exception {
        // The binary protocol has no "every backend": the replica the connection reads from runs it.
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("reports", "useServerPrepStmts=true"));
                java.sql.PreparedStatement set = c.prepareStatement("SET time_zone = ?");
                Statement s = c.createStatement()) {
            set.setString(1, "+05:00");
            set.execute();
            try (java.sql.ResultSet rs = s.executeQuery("SELECT @@time_zone, @@server_id")) {
                rs.next();
                assertThat(rs.getString(1)).as("time_zone where the connection reads").isEqualTo("+05:00");
                assertThat(rs.getLong(2)).as("a replica, not the primary").isNotEqualTo(primaryId);
            }
        }
    }

    @Test
    void activeSessionsAreCountedPerNodeAndPerEndpoint() throws Exception {
        List<Connection> open = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                Connection c = DriverManager.getConnection(sluice.mariadbUrl("reports", ""));
                open.add(c);
                try (Statement s = c.createStatement()) {
                    names.where(s, "SELECT @@server_id");
                }
            }
            JsonNode proxy = describeProxy();
            assertThat(activeSessions(proxy, "ro1", "reports")).as("reports sessions on ro1").isEqualTo(2);
            assertThat(activeSessions(proxy, "ro2", "reports")).as("reports sessions on ro2").isEqualTo(2);
            assertThat(activeSessions(proxy, "ro1", "app_a")).as("app_a sessions on ro1").isZero();
            assertThat(activeSessions(proxy, "ro2", "reports_weighted")).as("reports_weighted sessions on ro2").isZero();
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
        await("sessions leave the counts when clients disconnect").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    JsonNode proxy = describeProxy();
                    return activeSessions(proxy, "ro1", "reports") == 0 && activeSessions(proxy, "ro2", "reports") == 0;
                });
    }

    private static JsonNode describeProxy() throws Exception {
        return AdminView.describeProxy(sluice);
    }

    /** DescribeDBProxy's nodes, for a failure message. */
    private static String nodesNow() {
        try {
            return describeProxy().get("nodes").toString();
        } catch (Exception e) {
            return "(DescribeDBProxy failed: " + e + ")";
        }
    }

    private static int activeSessions(JsonNode proxy, String node, String endpoint) {
        return AdminView.load(proxy, node, endpoint).get("activeSessions").asInt();
    }

    /** Reads of one bare client (no driver start-up queries), counted per node. */
    private static Map<String, Long> readsOfOneClient(String endpoint, int reads) throws Exception {
        Map<String, Long> counts = new TreeMap<>();
        try (RawMysqlClient client = RawMysqlClient.login(sluice.port(endpoint), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", Duration.ofSeconds(10))) {
            for (int i = 0; i < reads; i++) {
                counts.merge(names.name(Long.parseLong(client.query("SELECT @@server_id").get(0).get(0))), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** Opens connections at once, checks that each reads from one replica only, and counts them per replica. */
    private static Map<String, Long> connectionsPerReplica(String endpoint, int connections) throws SQLException {
        List<Connection> open = new ArrayList<>();
        Map<String, Long> counts = new TreeMap<>();
        try {
            for (int i = 0; i < connections; i++) {
                open.add(DriverManager.getConnection(sluice.mariadbUrl(endpoint, "")));
            }
            for (Connection c : open) {
                Set<String> seen = new HashSet<>();
                try (Statement s = c.createStatement()) {
                    for (int i = 0; i < 8; i++) {
                        seen.add(names.where(s, "SELECT @@server_id"));
                    }
                }
                assertThat(seen).as("nodes one connection of " + endpoint + " read from").hasSize(1);
                counts.merge(seen.iterator().next(), 1L, Long::sum);
            }
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
        return counts;
    }
}
