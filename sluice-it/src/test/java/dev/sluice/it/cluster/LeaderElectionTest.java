package dev.sluice.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.EtcdServer;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Leader election in cluster mode (BEHAVIOUR §11), with a real etcd and three in-process instances
 * over the shared sandbox, all with {@code failover: auto}: exactly one leads; a switchover sent to
 * another is refused naming the leader; closing the leader hands the leadership on within a bound
 * of the lease; and when the sandbox primary is killed (SIGKILL) exactly one instance fails over,
 * and all three send writes to the new primary. Each test starts its own instances and leaves the
 * sandbox healthy again (node 0 the primary).
 */
class LeaderElectionTest {
    /** As ClusterConfigTest's: follows the sandbox port, so runs side by side do not share an etcd. */
    private static final int ETCD_PORT = Integer.getInteger("sluice.etcd.port",
            20_000 + (SandboxCluster.BASE_PORT - 3_000) * 2);
    /** A change in cluster mode may wait for etcd and for its own instance to run it. */
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(20);
    private static final String PREFIX = "/sluice-it/leader-election";
    private static final String TABLE = "test.leader_writes";
    private static final List<String> NAMES = List.of("a", "b", "c");
    /** The monitor settings of faults/FailoverTest: a failover starts 2–4 s after the kill. */
    private static final Duration INTERVAL = Duration.ofMillis(500);
    private static final int DOWN_AFTER = 2;
    private static final int FAILOVER_AFTER = 3;
    private static final Duration SWITCHOVER_TIMEOUT = Duration.ofSeconds(5);
    /** The instances' lease, campaign tick and etcd call bound (ClusterMember, EtcdStore). */
    private static final Duration LEASE_TTL = Duration.ofSeconds(5);
    private static final Duration TICK = Duration.ofSeconds(1);
    private static final Duration ETCD_CALL = Duration.ofSeconds(2);
    /**
     * A leader that closes revokes its lease, so the next campaign (one tick) takes the key; if the
     * revoke did not reach etcd, the lease expires first. Either way: the lease, a tick and a call,
     * doubled for a loaded 2-core machine.
     */
    private static final Duration HANDOVER_BOUND = LEASE_TTL.plus(TICK).plus(ETCD_CALL).multipliedBy(2);
    /** Starting, electing, failing over, following: generous, for a loaded 2-core machine. */
    private static final Duration SETTLE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(50);

    private static EtcdServer etcd;
    private static SandboxCluster sandbox;
    private final List<SluiceHarness> instances = new ArrayList<>();
    private final List<AdminClient> admins = new ArrayList<>();

    @BeforeAll
    static void start() {
        etcd = EtcdServer.start(ETCD_PORT);
        sandbox = SandboxCluster.get();
        // What scripts/sandbox.sh grants the monitor account now; a sandbox made before it lacks them.
        sandbox.rootQuery(sandbox.primary(), "GRANT RELOAD, READ_ONLY ADMIN ON *.* TO '"
                + SandboxCluster.MONITOR_USER + "'@'127.0.0.1'");
        sandbox.exec(sandbox.primary(), "CREATE TABLE IF NOT EXISTS " + TABLE
                + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, instance VARCHAR(8) NOT NULL)");
        sandbox.waitForReplicasCaughtUp(SETTLE);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sandbox != null) {
            sandbox.restoreHealthy();
            sandbox.exec(sandbox.primary(), "DROP TABLE IF EXISTS " + TABLE);
            sandbox.waitForReplicasCaughtUp(SETTLE);
        }
        if (etcd != null) {
            etcd.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    /** Three instances started at once, under a prefix of the test's own: no leader key left by another test. */
    @BeforeEach
    void instances(TestInfo test) throws Exception {
        String prefix = PREFIX + "/" + test.getTestMethod().orElseThrow().getName();
        List<CompletableFuture<SluiceHarness>> starting = new ArrayList<>();
        for (String name : NAMES) {
            starting.add(CompletableFuture.supplyAsync(() -> instance(name, prefix)));
        }
        for (CompletableFuture<SluiceHarness> s : starting) {
            SluiceHarness h = s.get(2, TimeUnit.MINUTES);
            instances.add(h);
            admins.add(new AdminClient(h.adminAddress(), "", ADMIN_TIMEOUT));
        }
    }

    @AfterEach
    void restore() {
        for (SluiceHarness h : instances) {
            if (h != null) {
                h.close();
            }
        }
        sandbox.restoreHealthy();
    }

    @Test
    void exactlyOneLeadsOthersReferToItAndClosingItHandsTheLeadershipOn() {
        int leader = awaitOneLeader(List.of(0, 1, 2));
        String name = NAMES.get(leader);
        int other = (leader + 1) % 3;
        AdminClient.Reply refused = admins.get(other).post("/v1/switchover", "{}");
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.json().get("error").asText()).contains("send it to '" + name + "'")
                .contains("http://127.0.0.1:" + instances.get(leader).adminAddress().getPort() + "/v1/switchover");
        assertThat(admins.get(other).post("/v1/failover", "{}").status()).isEqualTo(409);

        instances.get(leader).close();
        instances.set(leader, null);
        long closedAt = System.nanoTime();
        List<Integer> rest = new ArrayList<>(List.of(0, 1, 2));
        rest.remove(Integer.valueOf(leader));
        int next = awaitOneLeader(rest, HANDOVER_BOUND);
        System.out.printf("[leader] '%s' closed; '%s' leads %d ms later%n", name, NAMES.get(next),
                Duration.ofNanos(System.nanoTime() - closedAt).toMillis());
        assertThat(next).isNotEqualTo(leader);
    }

    @Test
    void aLeaderCutOffFromEtcdStopsLeadingBeforeItsLeaseCouldExpireAndOneLeadsWhenEtcdIsBack() {
        int leader = awaitOneLeader(List.of(0, 1, 2));
        // Its last renewal was sent before this point, so etcd keeps its lease a TTL from here at least; it stops
        // leading 1 s before that by its own clock (LeadershipTest), so no other can lead while it still does.
        long before = System.nanoTime();
        etcd.stop();
        await("no instance leads").atMost(LEASE_TTL).pollInterval(POLL).untilAsserted(() -> {
            for (int i = 0; i < 3; i++) {
                assertThat(metric(i, "sluice_cluster_leader")).as(NAMES.get(i)).isEqualTo("0.0");
            }
        });
        System.out.printf("[leader] etcd stopped; '%s' no longer leads %d ms after the stop began%n",
                NAMES.get(leader), Duration.ofNanos(System.nanoTime() - before).toMillis());
        AdminClient.Reply refused = admins.get(leader).post("/v1/switchover", "{}");
        assertThat(refused.status()).as(refused.body()).isEqualTo(503);
        assertThat(refused.json().get("error").asText()).contains("etcd is unreachable");

        etcd.start();
        awaitOneLeader(List.of(0, 1, 2));
    }

    @Test
    void aKilledPrimaryIsFailedOverByTheLeaderAloneAndEveryInstanceWritesToTheNewPrimary(TestInfo test) throws Exception {
        int leader = awaitOneLeader(List.of(0, 1, 2));
        for (SluiceHarness h : instances) {
            insertThrough(h);
        }
        // Every write shipped: the old primary holds nothing the new one lacks, so it rejoins below.
        sandbox.waitForReplicasCaughtUp(SETTLE);
        SandboxNode old = sandbox.primary();
        sandbox.kill(old);
        await("the leader's failover is done").atMost(SETTLE).pollInterval(POLL).ignoreExceptions()
                .until(() -> admins.get(leader).get("/v1/proxy").json().at("/failover/state").asText().equals("done"));
        JsonNode failover = admins.get(leader).get("/v1/proxy").json().get("failover");
        assertThat(failover.get("trigger").asText()).as(failover.toString()).isEqualTo("auto");
        SandboxNode promoted = sandbox.node(failover.get("to").asText());
        System.out.println("[leader] '" + NAMES.get(leader) + "' failed over: " + failover);

        // Every instance, the leader included, writes to the new primary; the others by following it.
        for (SluiceHarness h : instances) {
            await("writes through an instance reach the new primary").atMost(SETTLE).pollInterval(POLL)
                    .ignoreExceptions().until(() -> insertThrough(h) == promoted.serverId());
        }
        for (int i = 0; i < 3; i++) {
            if (i != leader) {
                JsonNode theirs = admins.get(i).get("/v1/proxy").json().get("failover");
                assertThat(theirs.get("state").asText()).as(NAMES.get(i) + ": " + theirs).isEqualTo("none");
                assertThat(admins.get(i).get("/v1/nodes/" + promoted.name()).json().get("role").asText())
                        .isEqualTo("primary");
            }
        }
        assertThat(metric(leader, "sluice_failovers_total{outcome=\"done\"}")).isEqualTo("1.0");

        // The move is in the shared configuration: the roles, and the old primary out of traffic on every instance.
        await("etcd names the new primary and drains the old one").atMost(SETTLE).pollInterval(POLL)
                .untilAsserted(() -> {
                    JsonNode shared = shared(test);
                    assertThat(sharedRole(shared, promoted.name())).isEqualTo("primary");
                    assertThat(sharedRole(shared, old.name())).isEqualTo("replica");
                    assertThat(shared.at("/former-primary/node").asText()).isEqualTo(old.name());
                    assertThat(shared.at("/former-primary/promoted-at").asText())
                            .isEqualTo(failover.get("promoted-at").asText());
                });
        for (int i = 0; i < 3; i++) {
            int instance = i;
            await("the old primary is drained on every instance").atMost(SETTLE).pollInterval(POLL)
                    .untilAsserted(() -> assertThat(node(instance, old.name()).get("draining").asBoolean())
                            .as(NAMES.get(instance)).isTrue());
        }
        // A change made meanwhile through another instance keeps it drained everywhere, the leader included.
        int other = (leader + 1) % 3;
        AdminClient.Reply modified = admins.get(other).patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"77ms\"}");
        assertThat(modified.status()).as(modified.body()).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            int instance = i;
            await("the change runs everywhere").atMost(SETTLE).pollInterval(POLL).untilAsserted(() -> assertThat(
                    admins.get(instance).endpoint("rw").get("consistency-timeout").asText()).isEqualTo("77ms"));
            assertThat(node(i, old.name()).get("draining").asBoolean()).as(NAMES.get(i)).isTrue();
            assertThat(node(i, promoted.name()).get("role").asText()).as(NAMES.get(i)).isEqualTo("primary");
        }

        // The leader goes before the old primary is back: the next leader judges and rejoins it, and it takes
        // reads again on every instance.
        instances.get(leader).close();
        instances.set(leader, null);
        List<Integer> rest = new ArrayList<>(List.of(0, 1, 2));
        rest.remove(Integer.valueOf(leader));
        int next = awaitOneLeader(rest, HANDOVER_BOUND);
        sandbox.startAsReplica(old);
        await("the next leader rejoins the old primary").atMost(SETTLE).pollInterval(POLL).ignoreExceptions()
                .until(() -> admins.get(next).get("/v1/proxy").json().at("/failover/former-primary").asText()
                        .equals("rejoined"));
        for (int i : rest) {
            await("the old primary is back in traffic").atMost(SETTLE).pollInterval(POLL)
                    .untilAsserted(() -> assertThat(node(i, old.name()).get("draining").asBoolean())
                            .as(NAMES.get(i)).isFalse());
        }
        await("etcd no longer holds it out").atMost(SETTLE).pollInterval(POLL).untilAsserted(() ->
                assertThat(shared(test).has("former-primary")).isFalse());
    }

    private JsonNode node(int instance, String name) {
        return admins.get(instance).get("/v1/nodes/" + name).json();
    }

    /** The shared configuration as etcd holds it under this test's prefix. */
    private static JsonNode shared(TestInfo test) throws Exception {
        String key = PREFIX + "/" + test.getTestMethod().orElseThrow().getName() + "/config";
        try (Client client = Client.builder().endpoints(etcd.url()).build()) {
            List<KeyValue> kvs = client.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8))
                    .get(10, TimeUnit.SECONDS).getKvs();
            assertThat(kvs).as("the shared configuration").hasSize(1);
            return new ObjectMapper(new YAMLFactory()).readTree(kvs.get(0).getValue().toString(StandardCharsets.UTF_8));
        }
    }

    private static String sharedRole(JsonNode shared, String node) {
        for (JsonNode n : shared.path("nodes")) {
            if (n.path("name").asText().equals(node)) {
                return n.path("role").asText();
            }
        }
        return "";
    }

    /** Waits until exactly one of {@code among} leads and all of them name it; its index. */
    private int awaitOneLeader(List<Integer> among) {
        return awaitOneLeader(among, SETTLE);
    }

    private int awaitOneLeader(List<Integer> among, Duration bound) {
        int[] leader = new int[1];
        await("exactly one leader, named by all").atMost(bound).pollInterval(POLL).untilAsserted(() -> {
            List<Integer> leading = new ArrayList<>();
            for (int i : among) {
                if (metric(i, "sluice_cluster_leader").equals("1.0")) {
                    leading.add(i);
                }
            }
            assertThat(leading).hasSize(1);
            leader[0] = leading.get(0);
            for (int i : among) {
                assertThat(admins.get(i).get("/v1/proxy").json().path("leader").asText())
                        .isEqualTo(NAMES.get(leader[0]));
            }
        });
        return leader[0];
    }

    /** A metric's value as the instance's /metrics shows it ("" if absent). */
    private String metric(int instance, String series) {
        for (String line : admins.get(instance).get("/metrics").body().lines().toList()) {
            if (line.startsWith(series + " ")) {
                return line.substring(series.length() + 1).trim();
            }
        }
        return "";
    }

    /** Writes a row through {@code h}'s read-write endpoint; the server id of the node that took it. */
    private static long insertThrough(SluiceHarness h) throws Exception {
        try (Connection c = h.connect("rw"); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO " + TABLE + " (instance) VALUES ('" + h.adminAddress().getPort() % 1000 + "')");
            try (ResultSet rs = s.executeQuery("/*FORCE_MASTER*/ SELECT @@server_id")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static SluiceHarness instance(String name, String prefix) {
        String config = SluiceHarness.nodesYaml(sandbox).replace("interval: 500ms}", "interval: "
                + INTERVAL.toMillis() + "ms, down-after: " + DOWN_AFTER + ", failover: auto, failover-after: "
                + FAILOVER_AFTER + ", switchover-timeout: " + SWITCHOVER_TIMEOUT.toSeconds() + "s}")
                + "replication: {user: repl, password: repl}\n"
                + "endpoints:\n  - {name: rw, listen: 127.0.0.1:0, mode: read-write}\n"
                + "cluster: {etcd: [" + etcd.url() + "], name: " + name + ", prefix: " + prefix + "}\n";
        return SluiceHarness.fromYaml(sandbox, config);
    }
}
