package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BEHAVIOUR §8: while sysbench {@code oltp_read_only} reads through Sluice on long-lived
 * connections, the operator changes weights (new sessions read in the new ratio at once), adds an
 * endpoint (it listens) and removes it (it stops accepting, its open session finishes its work),
 * adds a node (new sessions use it) and removes nodes that sessions are using (their later reads
 * go elsewhere). sysbench sees no error and no dropped connection in the whole sequence.
 */
class LiveChangesUnderLoadTest {
    private static final int THREADS = 4;
    private static final int SAMPLES = 400;
    private static final Duration SETTLE = Duration.ofSeconds(15);

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static AdminClient admin;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        cluster = SandboxCluster.get();
        SysbenchLoad.prepare(cluster, dir);
        // ro3 joins at run time. The endpoint lists no nodes: it uses every node, including added ones.
        sluice = SluiceHarness.fromYaml(cluster, SluiceHarness.nodesYaml(cluster, "",
                List.of(cluster.primary(), cluster.node("ro1"), cluster.node("ro2"))) + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    balancer: weighted
                    weights: {primary: 0, ro1: 100, ro2: 100}
                  - name: app
                    listen: 127.0.0.1:0
                    mode: read-write
                    nodes: [primary, ro1, ro2]
                    balancer: weighted
                    weights: {primary: 0, ro1: 100, ro2: 100}
                """);
        admin = new AdminClient(sluice.adminAddress());
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
        if (cluster != null) {
            SysbenchLoad.cleanup(cluster);
        }
    }

    @Test
    void weightsEndpointsAndNodesChangeUnderLoadWithoutAClientError() throws Exception {
        try (SysbenchLoad load = SysbenchLoad.start(sluice.port("rw"), THREADS, dir)) {
            await("sysbench reads through Sluice").atMost(SETTLE)
                    .until(() -> admin.statements("ro1", "rw") + admin.statements("ro2", "rw") > 100);

            newSessionsUseTheNewWeightsAndExistingOnesKeepTheirs();
            anAddedEndpointListensAndARemovedOneLetsItsSessionFinish();
            anAddedNodeTakesNewSessionsAndRemovedNodesAreLeftWithoutError();
            load.assertCleanRun();
        }
    }

    /**
     * On the loaded endpoint, ro2's weight goes to 0: a new session never reads it, while sysbench's
     * sessions, started before, keep the weights they started with (BEHAVIOUR §8) and go on reading it.
     * On a second endpoint over the same nodes, 100:100 becomes 300:100: a new session reads
     * ro1 exactly three times as often as ro2 (the smooth weighted rotation is exact for one reader).
     */
    private void newSessionsUseTheNewWeightsAndExistingOnesKeepTheirs() throws SQLException {
        long ro1Id = cluster.serverIdOf(cluster.node("ro1"));
        long ro2Id = cluster.serverIdOf(cluster.node("ro2"));
        admin.ok(admin.patch("/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 100, \"ro2\": 0}}"));
        long ro2Before = admin.statements("ro2", "rw");
        assertThat(sample(sluice.mariadbUrl("rw", ""))).as("a new session's reads").containsOnlyKeys(ro1Id);
        await("sysbench's sessions still read ro2").atMost(SETTLE)
                .until(() -> admin.statements("ro2", "rw") > ro2Before + 100);
        admin.ok(admin.patch("/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 100, \"ro2\": 100}}"));

        assertThat(sample(sluice.mariadbUrl("app", ""))).as("100:100").isEqualTo(Map.of(ro1Id, SAMPLES / 2,
                ro2Id, SAMPLES / 2));
        admin.ok(admin.patch("/v1/endpoints/app", "{\"weights\": {\"primary\": 0, \"ro1\": 300, \"ro2\": 100}}"));
        assertThat(sample(sluice.mariadbUrl("app", ""))).as("300:100").isEqualTo(Map.of(ro1Id, SAMPLES * 3 / 4,
                ro2Id, SAMPLES / 4));
    }

    private void anAddedEndpointListensAndARemovedOneLetsItsSessionFinish() throws Exception {
        admin.ok(admin.post("/v1/endpoints", """
                {"name": "reports", "listen": "127.0.0.1:0", "mode": "read-only", "nodes": ["ro1", "ro2"]}"""));
        int port = sluice.port("reports");
        String url = sluice.mariadbUrl("reports", "");
        try (Connection open = DriverManager.getConnection(url)) {
            long replica = AdminApiTest.serverId(open);
            assertThat(replica).isNotEqualTo(cluster.serverIdOf(cluster.primary()));

            assertThat(admin.delete("/v1/endpoints/reports").status()).isEqualTo(204);
            assertThatThrownBy(() -> DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port
                    + "/test?user=app&password=app&connectTimeout=2000").close())
                    .as("the removed endpoint accepts no new connection").isInstanceOf(SQLException.class);
            for (int i = 0; i < 20; i++) {
                assertThat(AdminApiTest.serverId(open)).as("the open session of a removed endpoint goes on")
                        .isEqualTo(replica);
            }
        }
    }

    private void anAddedNodeTakesNewSessionsAndRemovedNodesAreLeftWithoutError() throws Exception {
        SandboxNode ro3 = cluster.node("ro3");
        admin.ok(admin.post("/v1/nodes", "{\"name\": \"ro3\", \"address\": \"" + ro3.address()
                + "\", \"role\": \"replica\"}"));
        await("the monitor reaches ro3").atMost(SETTLE).until(() -> admin.node("ro3").get("state").asText()
                .equals("up"));
        // With custom weights an added node weighs 0 until the operator gives it a weight (BEHAVIOUR §2).
        assertThat(admin.node("ro3").get("endpoints").get("rw").get("weight").asInt()).isZero();
        admin.ok(admin.patch("/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 100, \"ro2\": 100, "
                + "\"ro3\": 200}}"));
        await("ro3 is readable").atMost(SETTLE)
                .until(() -> admin.node("ro3").get("endpoints").get("rw").get("readable").asBoolean());
        try (Connection onRo3 = sluice.connect("rw")) {
            Map<Long, Integer> reads = sample(sluice.mariadbUrl("rw", ""));
            assertThat(reads).as("new sessions read the added node").containsKey(cluster.serverIdOf(ro3));
            assertThat(sampleOn(onRo3)).containsKey(cluster.serverIdOf(ro3));
            assertThat(admin.activeSessions("ro3", "rw")).isPositive();

            // ro2 serves sysbench's sessions, ro3 the one above: both go while they are in use.
            assertThat(admin.delete("/v1/nodes/ro3").status()).isEqualTo(204);
            assertThat(admin.delete("/v1/nodes/ro2").status()).isEqualTo(204);
            Map<Long, Integer> after = sampleOn(onRo3);
            assertThat(after).as("the session that used ro3 reads elsewhere, without an error")
                    .doesNotContainKeys(cluster.serverIdOf(ro3), cluster.serverIdOf(cluster.node("ro2")));
        }
        await("sessions leave the removed nodes' connections").atMost(SETTLE).untilAsserted(() -> {
            assertThat(appConnections(cluster.node("ro2"))).as("app connections on ro2: %s",
                    processlist(cluster.node("ro2"))).isZero();
            assertThat(appConnections(ro3)).as("app connections on ro3: %s", processlist(ro3)).isZero();
        });
        assertThat(admin.node("ro2")).isNull();
        assertThat(admin.endpoint("rw").get("weights").has("ro2")).isFalse();
    }

    private static long appConnections(SandboxNode node) {
        return Long.parseLong(cluster.queryString(node, "SELECT COUNT(*) FROM information_schema.processlist "
                + "WHERE user = '" + SandboxCluster.APP_USER + "' AND id <> CONNECTION_ID()"));
    }

    private static String processlist(SandboxNode node) {
        return cluster.queryString(node, "SELECT GROUP_CONCAT(CONCAT_WS(' ', id, host, db, command, time, state, info)"
                + " SEPARATOR ' | ') FROM information_schema.processlist WHERE user = '" + SandboxCluster.APP_USER
                + "' AND id <> CONNECTION_ID()");
    }

    /** Where {@value #SAMPLES} reads of one new session ran, by {@code @@server_id}. */
    private static Map<Long, Integer> sample(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            return sampleOn(c);
        }
    }

    private static Map<Long, Integer> sampleOn(Connection c) throws SQLException {
        Map<Long, Integer> reads = new HashMap<>();
        for (int i = 0; i < SAMPLES; i++) {
            reads.merge(AdminApiTest.serverId(c), 1, Integer::sum);
        }
        return reads;
    }
}
