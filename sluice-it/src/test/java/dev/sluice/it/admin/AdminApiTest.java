package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §8: the admin API over real HTTP against a Sluice in front of the sandbox.
 * DescribeDBProxy shows real, live figures (sessions opened here are counted on the node they
 * use, a running statement is an active request, lag and GTID position are the nodes' own);
 * DescribeDBProxyEndpoint and ModifyDBProxyEndpoint agree; endpoints and nodes are added and
 * removed; and every kind of bad input is refused with a 4xx whose message names the problem,
 * leaving the proxy exactly as it was.
 */
class AdminApiTest {
    private static final Duration SETTLE = Duration.ofSeconds(15);
    private static final int SESSIONS = 3;
    private static final String TOKEN = "s3cret-admin-token";
    private static final int CONNECT_TIMEOUT_MS = 2000;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static AdminClient admin;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        // ro3 is left out: the tests add it at run time.
        sluice = SluiceHarness.fromYaml(cluster, SluiceHarness.nodesYaml(cluster, "",
                List.of(cluster.primary(), cluster.node("ro1"), cluster.node("ro2"))) + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    nodes: [primary, ro1, ro2]
                    weights: {primary: 0, ro1: 100, ro2: 0}
                  - name: narrow
                    listen: 127.0.0.1:0
                    mode: read-write
                    nodes: [primary, ro1]
                  - name: ro
                    listen: 127.0.0.1:0
                    mode: read-only
                """);
        admin = new AdminClient(sluice.adminAddress());
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
    }

    @Test
    void describeProxyCountsTheSessionsAndRequestsOpenedHere() throws Exception {
        long statementsBefore = admin.statements("ro1", "rw");
        List<Connection> sessions = new ArrayList<>();
        try {
            for (int i = 0; i < SESSIONS; i++) {
                Connection c = sluice.connect("rw");
                sessions.add(c);
                assertThat(serverId(c)).as("a read on rw runs on ro1, the only replica with weight")
                        .isEqualTo(cluster.serverIdOf(cluster.node("ro1")));
            }
            JsonNode proxy = admin.describe();
            assertThat(endpoint(proxy, "rw").get("activeSessions").asInt()).isEqualTo(SESSIONS);
            assertThat(admin.activeSessions("ro1", "rw")).as("sessions with a connection to ro1").isEqualTo(SESSIONS);
            assertThat(admin.activeSessions("ro2", "rw")).as("no read went to ro2 (weight 0)").isZero();
            assertThat(admin.statements("ro1", "rw") - statementsBefore).as("reads routed to ro1")
                    .isGreaterThanOrEqualTo(SESSIONS);

            CompletableFuture<Long> sleeping = CompletableFuture.supplyAsync(() -> query(sessions.get(0),
                    "SELECT SLEEP(3)"));
            await("the running SLEEP is an active request on ro1").atMost(SETTLE)
                    .until(() -> admin.node("ro1").get("endpoints").get("rw").get("activeRequests").asInt() == 1);
            sleeping.get();
            await("the finished SLEEP is no longer active").atMost(SETTLE)
                    .until(() -> admin.node("ro1").get("endpoints").get("rw").get("activeRequests").asInt() == 0);
        } finally {
            for (Connection c : sessions) {
                c.close();
            }
        }
        await("closed sessions leave the counts").atMost(SETTLE).until(() -> admin.activeSessions("ro1", "rw") == 0
                && endpoint(admin.describe(), "rw").get("activeSessions").asInt() == 0);
    }

    @Test
    void describeProxyShowsEveryNodeWithItsRoleStateLagAndGtidPosition() {
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS test.admin_api_gtid (id INT PRIMARY KEY)",
                "REPLACE INTO test.admin_api_gtid VALUES (1)", "DROP TABLE test.admin_api_gtid");
        cluster.waitForReplicasCaughtUp(SETTLE);
        await("DescribeDBProxy shows the nodes' own GTID positions, all up").atMost(SETTLE).untilAsserted(() -> {
            for (String name : List.of("primary", "ro1", "ro2")) {
                SandboxNode n = cluster.node(name);
                JsonNode d = admin.node(name);
                assertThat(d.get("role").asText()).as(name).isEqualTo(n.isPrimary() ? "primary" : "replica");
                assertThat(d.get("address").asText()).as(name).isEqualTo(n.address());
                assertThat(d.get("state").asText()).as(name).isEqualTo("up");
                assertThat(d.get("readOnly").asBoolean()).as(name).isEqualTo(!n.isPrimary());
                assertThat(d.get("gtidPosition").asText()).as(name)
                        .isEqualTo(cluster.queryString(n, "SELECT @@gtid_current_pos"));
                if (!n.isPrimary()) {
                    assertThat(d.get("replication").asText()).as(name).isEqualTo("running");
                    assertThat(d.get("lagSeconds").isIntegralNumber()).as(name + " lag: " + d).isTrue();
                    assertThat(d.get("lagSeconds").asLong()).as(name).isBetween(0L, 5L);
                }
            }
        });
        assertThat(admin.node("ro1").get("endpoints").get("rw").get("weight").asInt()).isEqualTo(100);
        assertThat(admin.node("ro2").get("endpoints").get("rw").get("weight").asInt()).isZero();
        assertThat(admin.node("ro2").get("endpoints").has("narrow")).as("narrow does not use ro2").isFalse();
    }

    @Test
    void modifyEndpointChangesWhatDescribeEndpointShows() {
        JsonNode before = admin.endpoint("rw");
        assertThat(before.get("mode").asText()).isEqualTo("read-write");
        assertThat(before.get("weights").get("ro1").asInt()).isEqualTo(100);
        try {
            JsonNode changed = admin.ok(admin.patch("/v1/endpoints/rw", """
                    {"weights": {"primary": 0, "ro1": 100, "ro2": 250}, "consistency": "session",
                     "consistency-timeout": "50ms", "max-replication-lag": "5s", "balancer": "weighted"}""")).json();
            JsonNode now = admin.endpoint("rw");
            assertThat(now).isEqualTo(changed);
            assertThat(now.get("weights").get("ro2").asInt()).isEqualTo(250);
            assertThat(now.get("consistency").asText()).isEqualTo("session");
            assertThat(now.get("consistency-timeout").asText()).isEqualTo("50ms");
            assertThat(now.get("max-replication-lag").asText()).isEqualTo("5s");
            assertThat(now.get("balancer").asText()).isEqualTo("weighted");
            assertThat(now.get("listen")).isEqualTo(before.get("listen"));
            assertThat(admin.node("ro2").get("endpoints").get("rw").get("weight").asInt()).isEqualTo(250);
            assertThat(endpoint(admin.describe(), "rw").get("consistency").asText()).isEqualTo("session");
        } finally {
            admin.ok(admin.patch("/v1/endpoints/rw", before.toString()));
        }
        assertThat(admin.endpoint("rw")).isEqualTo(before);
    }

    @Test
    void anAddedEndpointListensAndARemovedOneStopsAccepting() throws Exception {
        JsonNode created = admin.ok(admin.post("/v1/endpoints", """
                {"name": "reports", "listen": "127.0.0.1:0", "mode": "read-only", "nodes": ["ro1", "ro2"]}"""))
                .json();
        assertThat(created.get("name").asText()).isEqualTo("reports");
        assertThat(admin.endpoint("reports").get("mode").asText()).isEqualTo("read-only");
        int port = sluice.port("reports");
        Set<Long> replicas = Set.of(cluster.serverIdOf(cluster.node("ro1")), cluster.serverIdOf(cluster.node("ro2")));
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("reports", ""))) {
            assertThat(serverId(c)).as("a read-only endpoint reads a replica").isIn(replicas);
        }

        assertThat(admin.delete("/v1/endpoints/reports").status()).isEqualTo(204);
        assertThat(admin.get("/v1/endpoints/reports").status()).isEqualTo(404);
        assertThat(endpointNames(admin.describe())).doesNotContain("reports");
        try (Socket s = new Socket()) {
            assertThat(connects(s, port)).as("the removed endpoint's port no longer accepts").isFalse();
        }
    }

    @Test
    void anAddedNodeIsMonitoredAndUsedAndARemovedOneDisappears() throws Exception {
        SandboxNode ro3 = cluster.node("ro3");
        JsonNode added = admin.ok(admin.post("/v1/nodes", """
                {"name": "ro3", "address": "%s", "role": "replica", "zone": "b"}""".formatted(ro3.address())))
                .json();
        try {
            assertThat(added.get("name").asText()).isEqualTo("ro3");
            assertThat(added.get("zone").asText()).isEqualTo("b");
            await("the monitor reaches the new node").atMost(SETTLE)
                    .until(() -> admin.node("ro3").get("state").asText().equals("up"));
            // The read-only endpoint lists no nodes: it uses every replica, including ro3 now (auto weight).
            await("ro3 is readable on the read-only endpoint").atMost(SETTLE)
                    .until(() -> admin.node("ro3").get("endpoints").get("ro").get("readable").asBoolean());
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 9; i++) {
                try (Connection c = sluice.connect("ro")) {
                    seen.add(serverId(c));
                }
            }
            assertThat(seen).as("new read-only sessions are spread over ro1, ro2 and the added ro3")
                    .contains(cluster.serverIdOf(ro3));
        } finally {
            assertThat(admin.delete("/v1/nodes/ro3").status()).isEqualTo(204);
        }
        assertThat(admin.node("ro3")).isNull();
        assertThat(admin.get("/v1/nodes/ro3").status()).isEqualTo(404);
        for (int i = 0; i < 6; i++) {
            try (Connection c = sluice.connect("ro")) {
                assertThat(serverId(c)).as("no session reaches a removed node").isNotEqualTo(cluster.serverIdOf(ro3));
            }
        }
    }

    @Test
    void badInputIsRefusedWithAMessageThatNamesTheProblemAndChangesNothing() {
        JsonNode before = state();
        refused("PATCH", "/v1/endpoints/rw", "{\"colour\": \"blue\"}", 400, "colour");
        refused("PATCH", "/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 10001}}", 400, "ro1", "0..10000");
        refused("PATCH", "/v1/endpoints/rw", "{\"weights\": {\"ro1\": -1}}", 400, "ro1", "0..10000");
        refused("PATCH", "/v1/endpoints/rw", "{\"weights\": {\"ro1\": 1.5}}", 400, "ro1");
        refused("PATCH", "/v1/endpoints/rw", "{\"weights\": {\"ro9\": 100}}", 400, "ro9");
        refused("PATCH", "/v1/endpoints/rw", "{\"nodes\": [\"primary\"], \"weights\": \"auto\"}", 400, "replica");
        refused("PATCH", "/v1/endpoints/rw", "{\"nodes\": [\"ro1\", \"ro2\"], \"weights\": \"auto\"}", 400,
                "primary");
        refused("PATCH", "/v1/endpoints/narrow", "{\"nodes\": [\"primary\"]}", 400, "replica");
        refused("PATCH", "/v1/endpoints/rw", "{\"nodes\": [\"primary\", \"ro9\"]}", 400, "ro9");
        refused("PATCH", "/v1/endpoints/rw", "{\"mode\": \"sideways\"}", 400, "sideways");
        refused("PATCH", "/v1/endpoints/rw", "{\"allow\": [\"not-an-address\"]}", 400, "not-an-address");
        refused("PATCH", "/v1/endpoints/rw", "{\"max-connections\": 0}", 400, "max-connections");
        refused("PATCH", "/v1/endpoints/rw", "{\"consistency-timeout\": \"soon\"}", 400, "consistency-timeout");
        refused("PATCH", "/v1/endpoints/rw", "{\"listen\": \"127.0.0.1:1\"}", 400, "listen");
        refused("PATCH", "/v1/endpoints/rw", "{\"name\": \"other\"}", 400, "name");
        refused("PATCH", "/v1/endpoints/rw", "{\"weights\": {\"ro1\": ", 400, "JSON");
        refused("PATCH", "/v1/endpoints/rw", "[1, 2]", 400, "JSON object");
        refused("PATCH", "/v1/endpoints/rw", "", 400, "JSON body");
        refused("PATCH", "/v1/endpoints/rw?persist=maybe", "{\"weights\": {\"ro1\": 5}}", 400, "persist");
        refused("PATCH", "/v1/endpoints/nope", "{\"weights\": {\"ro1\": 5}}", 404, "nope");
        refused("GET", "/v1/endpoints/nope", null, 404, "nope");
        refused("DELETE", "/v1/endpoints/nope", null, 404, "nope");
        refused("POST", "/v1/endpoints", "{\"name\": \"rw\", \"listen\": \"127.0.0.1:0\"}", 409, "rw");
        refused("POST", "/v1/endpoints", "{\"name\": \"x\", \"listen\": \"127.0.0.1:0\", \"mode\": \"read-write\", "
                + "\"nodes\": [\"primary\"]}", 400, "replica");
        refused("POST", "/v1/endpoints", "{\"name\": \"x\", \"listen\": \"127.0.0.1:0\", \"bogus\": 1}", 400, "bogus");
        refused("POST", "/v1/endpoints", "{\"name\": \"x\"}", 400, "listen");
        refused("POST", "/v1/endpoints", "{\"name\": \"x\", \"listen\": \"127.0.0.1:" + sluice.port("rw") + "\"}",
                409, "127.0.0.1:" + sluice.port("rw"));
        refused("GET", "/v1/nodes/ro9", null, 404, "ro9");
        refused("DELETE", "/v1/nodes/ro9", null, 404, "ro9");
        refused("POST", "/v1/nodes/ro9/drain", null, 404, "ro9");
        refused("DELETE", "/v1/nodes/primary", null, 409, "primary");
        // narrow's node set is [primary, ro1]: without ro1 it would have no replica.
        refused("DELETE", "/v1/nodes/ro1", null, 400, "narrow", "replica");
        refused("POST", "/v1/nodes", "{\"name\": \"ro1\", \"address\": \"127.0.0.1:1\", \"role\": \"replica\"}", 409,
                "ro1");
        refused("POST", "/v1/nodes", "{\"name\": \"ro4\", \"address\": \"nowhere\", \"role\": \"replica\"}", 400,
                "address");
        refused("POST", "/v1/nodes", "{\"name\": \"ro4\", \"address\": \"127.0.0.1:1\", \"role\": \"boss\"}", 400,
                "boss");
        refused("POST", "/v1/nodes", "{\"name\": \"ro4\", \"address\": \"127.0.0.1:1\", \"role\": \"primary\"}", 409,
                "primary");
        refused("POST", "/v1/nodes", "{\"name\": \"ro4\", \"address\": \"127.0.0.1:1\", \"colour\": 1}", 400,
                "colour");
        refused("PUT", "/v1/endpoints/rw", "{}", 405, "PATCH");
        refused("GET", "/v2/everything", null, 404, "/v1/");
        assertThat(state()).as("GET before == GET after every refused change").isEqualTo(before);
    }

    @Test
    void changesNeedTheAdminTokenWhenOneIsSet() {
        try (SluiceHarness guarded = SluiceHarness.fromYaml(cluster, SluiceHarness.nodesYaml(cluster,
                "token: " + TOKEN, cluster.nodes()) + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                """)) {
            AdminClient anonymous = new AdminClient(guarded.adminAddress());
            AdminClient wrong = new AdminClient(guarded.adminAddress(), "not-the-token");
            AdminClient operator = new AdminClient(guarded.adminAddress(), TOKEN);
            JsonNode before = anonymous.endpoint("rw");
            String change = "{\"weights\": {\"primary\": 0, \"ro1\": 7}}";
            for (AdminClient refused : List.of(anonymous, wrong)) {
                for (AdminClient.Reply r : List.of(refused.patch("/v1/endpoints/rw", change),
                        refused.post("/v1/nodes/ro1/drain", null), refused.delete("/v1/nodes/ro2"),
                        refused.post("/v1/endpoints", "{\"name\": \"x\", \"listen\": \"127.0.0.1:0\"}"))) {
                    assertThat(r.status()).as(r.body()).isEqualTo(401);
                    assertThat(r.error()).contains("token");
                }
            }
            assertThat(anonymous.endpoint("rw")).as("refused changes changed nothing").isEqualTo(before);
            assertThat(anonymous.node("ro1").get("draining").asBoolean()).isFalse();
            assertThat(anonymous.node("ro2")).isNotNull();
            assertThat(endpointNames(anonymous.describe())).containsExactly("rw");

            operator.ok(operator.patch("/v1/endpoints/rw", change));
            assertThat(anonymous.endpoint("rw").get("weights").get("ro1").asInt()).isEqualTo(7);
        }
    }

    /** Sends a bad request and checks the refusal: status and a message naming every fragment. */
    private static void refused(String method, String path, String body, int status, String... named) {
        AdminClient.Reply r = admin.send(method, path, body, "");
        assertThat(r.status()).as(method + " " + path + " " + body + " → " + r.body()).isEqualTo(status);
        assertThat(r.error()).as(method + " " + path + " " + body).contains(named);
    }

    /** Everything a refused change could have touched: the topology and every endpoint's settings. */
    private static JsonNode state() {
        var s = AdminClient.JSON.createObjectNode();
        s.set("proxy", admin.topology());
        for (String e : endpointNames(admin.describe())) {
            s.set(e, admin.endpoint(e));
        }
        return s;
    }

    private static List<String> endpointNames(JsonNode proxy) {
        List<String> names = new ArrayList<>();
        proxy.get("endpoints").forEach(e -> names.add(e.get("name").asText()));
        return names;
    }

    private static JsonNode endpoint(JsonNode proxy, String name) {
        for (JsonNode e : proxy.get("endpoints")) {
            if (e.get("name").asText().equals(name)) {
                return e;
            }
        }
        throw new AssertionError("no endpoint " + name + " in " + proxy);
    }

    private static boolean connects(Socket s, int port) {
        try {
            s.connect(new InetSocketAddress("127.0.0.1", port), CONNECT_TIMEOUT_MS);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static long serverId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@server_id")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    private static long query(Connection c, String sql) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
