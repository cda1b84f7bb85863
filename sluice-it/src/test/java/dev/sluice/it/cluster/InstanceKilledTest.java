package dev.sluice.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.EtcdServer;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceProcess;
import dev.sluice.it.support.TcpBalancer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode as it is deployed (BEHAVIOUR §11): three Sluice processes sharing one configuration
 * in a real etcd, behind HAProxy in TCP mode, with clients reading through HAProxy. One instance is
 * SIGKILLed: its clients lose their connections, reconnect through HAProxy to the others and go on,
 * while the clients on the others never see an error; the others keep the configuration and still
 * share changes; the dead instance leaves DescribeDBProxy when its lease expires and is listed
 * again once restarted.
 *
 * <p>The clients are JDBC, not sysbench: sysbench cannot reconnect a thread whose connection died
 * (it crashes on reconnect with libmariadb, akopytov/sysbench#527).
 */
class InstanceKilledTest {
    private static final int ETCD_PORT = Integer.getInteger("sluice.etcd.port",
            20_000 + (SandboxCluster.BASE_PORT - 3_000) * 2);
    private static final String PREFIX = "/sluice-it/instance-killed";
    private static final List<String> NAMES = List.of("a", "b", "c");
    /** Four clients an instance under round robin: some are on the killed one, most are not. */
    private static final int CLIENTS = 12;
    /** What "goes on" means: this many answers after the kill, for every client. */
    private static final int ANSWERS_AFTER_KILL = 20;
    private static final Duration START = Duration.ofMinutes(2);
    /** The instance's lease (5 s) plus a read tick and a loaded machine's margin. */
    private static final Duration LEASE_GONE = Duration.ofSeconds(20);
    private static final Duration GOES_ON = Duration.ofSeconds(60);
    private static final Duration PROPAGATION = Duration.ofSeconds(10);
    /** Small and quick to start: the load here is a dozen readers. */
    private static final List<String> JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private static EtcdServer etcd;
    private static SandboxCluster sandbox;
    private static Path dir;
    private static final List<SluiceProcess> instances = new ArrayList<>();
    private static TcpBalancer balancer;

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdServer.start(ETCD_PORT);
        sandbox = SandboxCluster.get();
        // Kept under target/: the instances' and HAProxy's logs are what a failure is read from.
        dir = Files.createDirectories(Path.of("target", "instance-killed").toAbsolutePath());
        // One after the other: three JVMs starting at once on two loaded cores take minutes. Each is
        // kept as soon as it runs, so that @AfterAll stops it whatever fails later.
        for (String name : NAMES) {
            instances.add(instance(name));
        }
        balancer = TcpBalancer.start(dir, instances.stream().map(SluiceProcess::port).toList());
    }

    private static SluiceProcess instance(String name) {
        try {
            Path own = Files.createDirectories(dir.resolve(name));
            return SluiceProcess.start(sandbox, own, "rw", "cluster: {etcd: [" + etcd.url() + "], name: " + name
                    + ", prefix: " + PREFIX + "}\n", JVM);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (balancer != null) {
            balancer.close();
        }
        for (SluiceProcess p : instances) {
            p.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void anInstanceKilledUnderLoadCostsItsClientsOneReconnectAndTheOthersNothing() throws Exception {
        AdminClient b = new AdminClient(instances.get(1).adminAddress());
        AdminClient c = new AdminClient(instances.get(2).adminAddress());
        await("every instance registered").atMost(START).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(listed(b)).containsExactlyElementsOf(NAMES));
        JsonNode endpointBefore = c.endpoint("rw");
        String url = "jdbc:mariadb://127.0.0.1:" + balancer.port() + "/test?user=" + SandboxCluster.APP_USER
                + "&password=" + SandboxCluster.APP_PASSWORD + "&connectTimeout=5000&socketTimeout=10000";
        try (ReconnectingReaders readers = ReconnectingReaders.start(url, CLIENTS)) {
            readers.awaitAnswersEach(ANSWERS_AFTER_KILL, GOES_ON);
            readers.markKill();
            instances.get(0).kill();
            readers.countAnswersFromNow();
            readers.awaitAnswersEach(ANSWERS_AFTER_KILL, GOES_ON);
            ReconnectingReaders.Tally t = readers.tally();
            assertThat(t.errorsOnLiveConnections()).as("errors on connections that stayed up: " + t.firstErrors())
                    .isZero();
            assertThat(t.failedConnects()).as("reconnects HAProxy could not send to a live instance: "
                    + t.firstErrors()).isZero();
            assertThat(t.lostBeforeKill()).as("connections lost before the kill: " + t.firstErrors()).isZero();
            assertThat(t.lostAfterKill()).as("clients that were on the killed instance lost their connection, "
                    + "each once").isBetween(1, CLIENTS / 2);
            assertThat(t.clientsLosingTwice()).as("a client reconnected to the dead instance").isZero();
        }
        await("the killed instance leaves DescribeDBProxy with its lease").atMost(LEASE_GONE)
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(listed(b)).containsExactly("b", "c"));
        assertThat(c.endpoint("rw")).as("the others keep the configuration").isEqualTo(endpointBefore);
        AdminClient.Reply changed = b.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"44ms\"}");
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        await("a change through B reaches C").atMost(PROPAGATION).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(c.endpoint("rw").get("consistency-timeout").asText()).isEqualTo("44ms"));

        instances.set(0, instance("a"));
        await("the restarted instance is listed again").atMost(LEASE_GONE).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(listed(c)).containsExactlyElementsOf(NAMES));
        AdminClient a = new AdminClient(instances.get(0).adminAddress());
        assertThat(a.endpoint("rw").get("consistency-timeout").asText())
                .as("the restarted instance runs the shared configuration, not its file").isEqualTo("44ms");
        try (var conn = java.sql.DriverManager.getConnection(instances.get(0).mariadbUrl(""));
                var s = conn.createStatement(); var rs = s.executeQuery("SELECT 1")) {
            assertThat(rs.next()).isTrue();
        }
    }

    private static List<String> listed(AdminClient admin) {
        List<String> names = new ArrayList<>();
        admin.get("/v1/proxy").json().get("instances").forEach(i -> names.add(i.get("name").asText()));
        return names;
    }
}
