package dev.sluice.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.EtcdServer;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Cluster mode (BEHAVIOUR §11) with a real etcd (scripts/etcd.sh, on its own port) and three
 * in-process instances over the shared sandbox, sharing one prefix: seeding once, changes through
 * any instance reaching all, conflicts refused, and serving on while etcd is down.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterConfigTest {
    /**
     * Derived from the sandbox's port, so that test runs side by side on one machine (each with its
     * own {@code sluice.sandbox.port}, ten apart) do not share an etcd: client port P, peer P + 10.
     */
    private static final int ETCD_PORT = Integer.getInteger("sluice.etcd.port",
            20_000 + (SandboxCluster.BASE_PORT - 3_000) * 2);
    /**
     * A change made through one instance is applied by every instance, checked in-process
     * ({@link RunningInstance}), then through each admin API. It reaches every instance through etcd's watch in well under a second (360 ms seen at
     * load 20); the bound here tells "propagated" from "lost", and leaves the speed to measurement,
     * since a shared machine's load would decide a 1 s bound.
     */
    private static final Duration PROPAGATION = Duration.ofSeconds(10);
    /** Starting, registering, etcd coming back: generous, for a loaded 2-core machine. */
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final Duration POLL = Duration.ofMillis(20);
    /** After an outage: one read tick (1 s) plus one etcd call's bound (2 s), with margin. */
    private static final Duration CATCH_UP = Duration.ofSeconds(5);
    private static final int CONFLICT_ROUNDS = 60;
    /** A change waits on etcd (2 s a call) and on its own instance running it (5 s at most), with margin. */
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(20);
    private static final String PREFIX = "/sluice-it/cluster-config";
    /** Long enough for the reads that follow a write, short enough to stay under the lag threshold. */
    private static final int APPLY_LATE_SECONDS = 5;

    private static EtcdServer etcd;
    private static SandboxCluster sandbox;
    private static final List<SluiceHarness> instances = new ArrayList<>();
    private static AdminClient a;
    private static AdminClient b;
    private static AdminClient c;

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdServer.start(ETCD_PORT);
        sandbox = SandboxCluster.get();
        // Two instances start at once with files that differ: whichever seeds, all end up running one configuration.
        CompletableFuture<SluiceHarness> first = CompletableFuture.supplyAsync(() -> instance("a", "eventual"));
        CompletableFuture<SluiceHarness> second = CompletableFuture.supplyAsync(() -> instance("b", "session"));
        instances.add(first.get(2, TimeUnit.MINUTES));
        instances.add(second.get(2, TimeUnit.MINUTES));
        instances.add(instance("c", "global"));
        a = new AdminClient(instances.get(0).adminAddress(), "", ADMIN_TIMEOUT);
        b = new AdminClient(instances.get(1).adminAddress(), "", ADMIN_TIMEOUT);
        c = new AdminClient(instances.get(2).adminAddress(), "", ADMIN_TIMEOUT);
    }

    /** An instance whose file configures the primary and two replicas (ro3 is added at run time). */
    private static SluiceHarness instance(String name, String consistency) {
        return SluiceHarness.fromYaml(sandbox, SluiceHarness.nodesYaml(sandbox, "", sandbox.nodes().subList(0, 3))
                + "endpoints:\n  - {name: rw, listen: 127.0.0.1:0, consistency: " + consistency + "}\n"
                + "cluster: {etcd: [" + etcd.url() + "], name: " + name + ", prefix: " + PREFIX + "}\n");
    }

    @AfterAll
    static void stop() {
        instances.forEach(SluiceHarness::close);
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    @Order(1)
    void instancesStartingTogetherSeedOnceAndRunOneConfiguration() throws Exception {
        try (Client client = Client.builder().endpoints(etcd.url()).build()) {
            List<KeyValue> kvs = client.getKVClient().get(ByteSequence.from(PREFIX + "/config", StandardCharsets.UTF_8))
                    .get(10, TimeUnit.SECONDS).getKvs();
            assertThat(kvs).hasSize(1);
            assertThat(kvs.get(0).getVersion()).as("written once: a single seed").isEqualTo(1);
        }
        String seeded = a.endpoint("rw").get("consistency").asText();
        assertThat(seeded).isIn("eventual", "session");
        for (AdminClient admin : List.of(a, b, c)) {
            assertThat(admin.endpoint("rw").get("consistency").asText()).isEqualTo(seeded);
        }
    }

    @Test
    @Order(2)
    void everyInstanceListsEveryInstance() {
        await().atMost(SETTLE).pollInterval(POLL).untilAsserted(() -> {
            for (AdminClient admin : List.of(a, b, c)) {
                JsonNode listed = admin.get("/v1/proxy").json().get("instances");
                assertThat(listed).isNotNull();
                List<String> names = new ArrayList<>();
                listed.forEach(i -> names.add(i.get("name").asText()));
                assertThat(names).containsExactly("a", "b", "c");
            }
        });
        JsonNode self = a.get("/v1/proxy").json().get("instances").get(0);
        assertThat(self.get("admin").asText()).isEqualTo("127.0.0.1:" + instances.get(0).adminAddress().getPort());
        assertThat(self.get("listen").get(0).asText()).isEqualTo("rw=127.0.0.1:" + instances.get(0).port("rw"));
        // Each is judged by what it reports: the same configuration and the same primary as the reader's.
        String primary = sandbox.primary().name();
        await().atMost(SETTLE).pollInterval(POLL).untilAsserted(() -> {
            for (AdminClient admin : List.of(a, b, c)) {
                for (JsonNode i : admin.get("/v1/proxy").json().get("instances")) {
                    assertThat(i.path("health").asText()).as(i.toString()).isEqualTo("ok");
                    assertThat(i.path("primary").asText()).isEqualTo(primary);
                    assertThat(i.path("revision").asLong()).isPositive();
                    assertThat(i.has("sessions")).isTrue();
                }
            }
        });
    }

    @Test
    @Order(3)
    void aModifyThroughOneInstanceIsSeenThroughTheOthersWithinOneSecond() {
        AdminClient.Reply r = a.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"77ms\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("consistency-timeout").asText()).isEqualTo("77ms");
        // The instance that made it runs it by the time it answers.
        assertThat(a.endpoint("rw").get("consistency-timeout").asText()).isEqualTo("77ms");
        await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
            assertThat(running(1).endpoint("rw").get("consistency-timeout").asText()).isEqualTo("77ms");
            assertThat(running(2).endpoint("rw").get("consistency-timeout").asText()).isEqualTo("77ms");
        });
        assertThat(b.endpoint("rw").get("consistency-timeout").asText()).isEqualTo("77ms");
        assertThat(c.endpoint("rw").get("consistency-timeout").asText()).isEqualTo("77ms");
    }

    @Test
    @Order(4)
    void aNodeAndAnEndpointAddedThroughOneInstanceRunOnTheOthers() throws Exception {
        var ro3 = sandbox.nodes().get(3);
        AdminClient.Reply node = b.post("/v1/nodes", "{\"name\": \"" + ro3.name() + "\", \"address\": \""
                + ro3.address() + "\", \"role\": \"replica\"}");
        assertThat(node.status()).as(node.body()).isIn(200, 201);
        AdminClient.Reply endpoint = b.post("/v1/endpoints", "{\"name\": \"reports\", \"listen\": \"127.0.0.1:0\", "
                + "\"mode\": \"read-only\", \"nodes\": [\"" + ro3.name() + "\"]}");
        assertThat(endpoint.status()).as(endpoint.body()).isIn(200, 201);
        await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
            for (int i : List.of(0, 2)) {
                assertThat(running(i).node(ro3.name())).isPresent();
                assertThat(running(i).endpoint("reports").isMissingNode()).isFalse();
            }
        });
        for (AdminClient admin : List.of(a, c)) {
            assertThat(admin.get("/v1/nodes/" + ro3.name()).status()).isEqualTo(200);
            assertThat(admin.get("/v1/endpoints/reports").status()).isEqualTo(200);
        }
        // A's new endpoint serves, from the node added through B.
        long ro3Id = sandbox.serverIdOf(ro3);
        // The node is new to A's monitor: until its first check the endpoint refuses connections.
        await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).ignoreExceptions().untilAsserted(() -> {
            try (Connection conn = instances.get(0).connect("reports"); Statement s = conn.createStatement();
                    ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(ro3Id);
            }
        });
        // A drain through C reaches A and B too.
        AdminClient.Reply drain = c.post("/v1/nodes/" + ro3.name() + "/drain", "");
        assertThat(drain.status()).as(drain.body()).isEqualTo(200);
        assertThat(drain.json().get("draining").asBoolean()).isTrue();
        await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
            for (int i : List.of(0, 1)) {
                assertThat(running(i).node(ro3.name()).orElseThrow().draining()).isTrue();
            }
        });
        for (AdminClient admin : List.of(a, b)) {
            assertThat(admin.get("/v1/nodes/" + ro3.name()).json().get("draining").asBoolean()).isTrue();
        }
        // And removed through C, they leave A and B.
        assertThat(c.delete("/v1/endpoints/reports").status()).isEqualTo(204);
        assertThat(c.delete("/v1/nodes/" + ro3.name()).status()).isEqualTo(204);
        await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
            for (int i : List.of(0, 1)) {
                assertThat(running(i).node(ro3.name())).isEmpty();
                assertThat(running(i).endpoint("reports").isMissingNode()).isTrue();
            }
        });
        for (AdminClient admin : List.of(a, b)) {
            assertThat(admin.get("/v1/nodes/" + ro3.name()).status()).isEqualTo(404);
            assertThat(admin.get("/v1/endpoints/reports").status()).isEqualTo(404);
        }
    }

    /**
     * Two instances change different settings at the same moment, round after round. Each change
     * is either in the final configuration or was answered 409: none is lost silently. The race is
     * real, so a round may serialize them; over the rounds, at least one conflict happens.
     */
    @Test
    @Order(5)
    void concurrentChangesLeaveOneAppliedAndTheOtherRefused() throws Exception {
        int conflicts = 0;
        for (int round = 1; round <= CONFLICT_ROUNDS && conflicts < 3; round++) {
            JsonNode before = a.endpoint("rw");
            String timeout = (100 + round) + "ms";
            String lag = (100 + round) + "s";
            CyclicBarrier together = new CyclicBarrier(2);
            CompletableFuture<AdminClient.Reply> viaA = CompletableFuture.supplyAsync(() -> {
                awaitBarrier(together);
                return a.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"" + timeout + "\"}");
            });
            CompletableFuture<AdminClient.Reply> viaB = CompletableFuture.supplyAsync(() -> {
                awaitBarrier(together);
                return b.patch("/v1/endpoints/rw", "{\"max-replication-lag\": \"" + lag + "\"}");
            });
            AdminClient.Reply ra = viaA.get(1, TimeUnit.MINUTES);
            AdminClient.Reply rb = viaB.get(1, TimeUnit.MINUTES);
            assertThat(ra.status()).as(ra.body()).isIn(200, 409);
            assertThat(rb.status()).as(rb.body()).isIn(200, 409);
            assertThat(ra.status() == 200 || rb.status() == 200).as("one of two changes is always applied").isTrue();
            for (AdminClient.Reply refused : List.of(ra, rb)) {
                if (refused.status() == 409) {
                    conflicts++;
                    assertThat(refused.json().get("error").asText()).contains("changed meanwhile").contains("retry");
                }
            }
            String expectedTimeout = ra.status() == 200 ? timeout : before.get("consistency-timeout").asText();
            String expectedLag = rb.status() == 200 ? lag : before.get("max-replication-lag").asText();
            await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
                for (int i : List.of(0, 1, 2)) {
                    JsonNode rw = running(i).endpoint("rw");
                    assertThat(rw.get("consistency-timeout").asText()).isEqualTo(expectedTimeout);
                    assertThat(rw.get("max-replication-lag").asText()).isEqualTo(expectedLag);
                }
            });
            assertThat(c.endpoint("rw").get("consistency-timeout").asText()).isEqualTo(expectedTimeout);
        }
        assertThat(conflicts).as("concurrent changes met in some round").isPositive();
    }

    @Test
    @Order(6)
    void withEtcdDownInstancesServeAndRefuseChangesThenCatchUp() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger queries = new AtomicInteger();
        AtomicReference<Throwable> clientError = new AtomicReference<>();
        List<Thread> clients = new ArrayList<>();
        for (SluiceHarness instance : instances) {
            Thread t = new Thread(() -> {
                while (running.get()) {
                    // A new connection each time: logins and routing, not only a held session, go on.
                    try (Connection conn = instance.connect("rw"); Statement s = conn.createStatement();
                            ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                        rs.next();
                        queries.incrementAndGet();
                    } catch (Exception e) {
                        clientError.compareAndSet(null, e);
                    }
                }
            }, "cluster-client");
            t.start();
            clients.add(t);
        }
        try {
            etcd.stop();
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                AdminClient.Reply refused = a.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"55ms\"}");
                assertThat(refused.status()).as(refused.body()).isEqualTo(503);
                assertThat(refused.json().get("error").asText()).contains("etcd is unreachable")
                        .contains("not made");
            });
            for (AdminClient admin : List.of(a, b, c)) {
                assertThat(admin.endpoint("rw").get("consistency-timeout").asText()).isNotEqualTo("55ms");
                assertThat(admin.get("/v1/proxy").status()).isEqualTo(200);
            }
            int before = queries.get();
            await().atMost(SETTLE).pollInterval(POLL).until(() -> queries.get() > before + 30);
            etcd.start();
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                AdminClient.Reply done = b.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"66ms\"}");
                assertThat(done.status()).as(done.body()).isEqualTo(200);
            });
            // The first change after the outage may meet an instance whose read of etcd was still
            // waiting out its call bound: it catches up within a tick and that bound.
            await().atMost(CATCH_UP).pollInterval(POLL).untilAsserted(() -> {
                for (int i : List.of(0, 1, 2)) {
                    assertThat(running(i).endpoint("rw").get("consistency-timeout").asText()).isEqualTo("66ms");
                }
            });
            // Then the watches run again: the next change reaches all within the usual second.
            AdminClient.Reply next = c.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"67ms\"}");
            assertThat(next.status()).as(next.body()).isEqualTo(200);
            await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
                for (int i : List.of(0, 1, 2)) {
                    assertThat(running(i).endpoint("rw").get("consistency-timeout").asText()).isEqualTo("67ms");
                }
            });
            for (AdminClient admin : List.of(a, b, c)) {
                assertThat(admin.endpoint("rw").get("consistency-timeout").asText()).isEqualTo("67ms");
            }
        } finally {
            running.set(false);
            for (Thread t : clients) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        assertThat(clientError.get()).as("client errors while etcd was down").isNull();
        assertThat(queries.get()).isPositive();
    }

    @Test
    @Order(7)
    void anInvalidConfigurationInEtcdIsRefusedAndTheLastGoodOneKept() throws Exception {
        ByteSequence key = ByteSequence.from(PREFIX + "/config", StandardCharsets.UTF_8);
        String before = a.endpoint("rw").get("consistency-timeout").asText();
        try (Client client = Client.builder().endpoints(etcd.url()).build()) {
            String good = client.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs().get(0).getValue()
                    .toString(StandardCharsets.UTF_8);
            // Written behind Sluice's back, and invalid: a timeout that is not a duration.
            String bad = good.replaceFirst("consistency-timeout: \\S+", "consistency-timeout: soon");
            assertThat(bad).isNotEqualTo(good);
            client.getKVClient().put(key, ByteSequence.from(bad, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
            await().atMost(SETTLE).pollInterval(POLL).untilAsserted(() -> {
                AdminClient.Reply refused = b.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"33ms\"}");
                assertThat(refused.status()).as(refused.body()).isEqualTo(409);
                assertThat(refused.json().get("error").asText()).contains("is invalid").contains("soon");
            });
            for (AdminClient admin : List.of(a, b, c)) {
                assertThat(admin.endpoint("rw").get("consistency-timeout").asText()).isEqualTo(before);
            }
            try (Connection conn = instances.get(1).connect("rw"); Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT 1")) {
                assertThat(rs.next()).isTrue();
            }
            client.getKVClient().put(key, ByteSequence.from(good, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
        }
        await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            AdminClient.Reply done = b.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"33ms\"}");
            assertThat(done.status()).as(done.body()).isEqualTo(200);
        });
        await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
            for (int i : List.of(0, 1, 2)) {
                assertThat(running(i).endpoint("rw").get("consistency-timeout").asText()).isEqualTo("33ms");
            }
        });
        for (AdminClient admin : List.of(a, b, c)) {
            assertThat(admin.endpoint("rw").get("consistency-timeout").asText()).isEqualTo("33ms");
        }
    }

    /**
     * Consistency does not stop at an instance: a token taken through one instance gives
     * read-your-writes through another, and a `global` endpoint of any instance sees commits made
     * through any other. The replicas apply late (still readable: under the lag threshold), so a
     * read that ignored either promise would be answered stale by a replica; the plain read shows
     * that it would.
     */
    @Test
    @Order(8)
    void aTokenFromOneInstanceAndGlobalReadsHoldThroughTheOthers() throws Exception {
        var replicas = sandbox.nodes().subList(1, 3);
        sandbox.exec(sandbox.primary(), "DROP TABLE IF EXISTS test.cluster_token",
                "CREATE TABLE test.cluster_token (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO test.cluster_token VALUES (1, 0)");
        sandbox.waitForReplicasCaughtUp(SETTLE);
        String weights = "\"weights\": {\"" + sandbox.primary().name() + "\": 0, \"" + replicas.get(0).name()
                + "\": 100, \"" + replicas.get(1).name() + "\": 100}";
        for (String endpoint : List.of("{\"name\": \"tokens\", \"consistency\": \"eventual\"",
                "{\"name\": \"everyone\", \"consistency\": \"global\"")) {
            AdminClient.Reply r = a.post("/v1/endpoints", endpoint + ", \"listen\": \"127.0.0.1:0\", "
                    + "\"mode\": \"read-write\", " + weights + "}");
            assertThat(r.status()).as(r.body()).isIn(200, 201);
        }
        await().atMost(PROPAGATION).pollInterval(POLL).untilAsserted(() -> {
            for (int i : List.of(1, 2)) {
                assertThat(running(i).endpoint("everyone").isMissingNode()).isFalse();
            }
        });
        replicas.forEach(r -> sandbox.delayReplication(r, APPLY_LATE_SECONDS));
        try {
            String token;
            try (Connection writer = instances.get(0).connect("tokens"); Statement s = writer.createStatement()) {
                s.executeUpdate("UPDATE test.cluster_token SET v = 1 WHERE id = 1");
                try (ResultSet rs = s.executeQuery("SELECT sluice_last_gtid()")) {
                    assertThat(rs.next()).isTrue();
                    token = rs.getString(1);
                }
            }
            assertThat(token).as("the token after a commit through A").isNotBlank();
            try (Connection reader = instances.get(1).connect("tokens"); Statement s = reader.createStatement()) {
                assertThat(value(s, "SELECT v FROM test.cluster_token WHERE id = 1"))
                        .as("without the token, B's replicas answer what they have: the check can fail").isZero();
                assertThat(value(s, "/*CONSISTENT_WITH=" + token + "*/ SELECT v FROM test.cluster_token WHERE id = 1"))
                        .as("A's token through B").isEqualTo(1);
            }
            try (Connection reader = instances.get(2).connect("everyone"); Statement s = reader.createStatement()) {
                assertThat(value(s, "SELECT v FROM test.cluster_token WHERE id = 1"))
                        .as("a global read through C sees A's commit").isEqualTo(1);
            }
        } finally {
            sandbox.restoreHealthy();
            assertThat(c.delete("/v1/endpoints/tokens").status()).isEqualTo(204);
            assertThat(c.delete("/v1/endpoints/everyone").status()).isEqualTo(204);
            sandbox.exec(sandbox.primary(), "DROP TABLE IF EXISTS test.cluster_token");
        }
    }

    private static int value(Statement s, String sql) throws java.sql.SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getInt(1);
        }
    }

    private static RunningInstance running(int i) {
        return new RunningInstance(instances.get(i));
    }

    private static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
