package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BEHAVIOUR §8, {@code --persist}: a change made with {@code ?persist=true} is written back to the
 * configuration file Sluice was started from, and a Sluice started from that file again has the
 * same endpoints, settings and nodes. The file is replaced atomically — a reader polling it while
 * changes are persisted one after the other only ever sees a whole, valid configuration, and no
 * temporary file is left beside it — and a change made without the flag leaves the file alone.
 */
class PersistTest {
    private static final int REWRITES = 30;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static AdminClient admin;

    @TempDir
    static Path dir;
    private static Path file;

    @BeforeAll
    static void start() throws Exception {
        cluster = SandboxCluster.get();
        file = dir.resolve("sluice.yaml");
        Files.writeString(file, SluiceHarness.nodesYaml(cluster, "",
                List.of(cluster.primary(), cluster.node("ro1"), cluster.node("ro2"))) + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100}
                """);
        sluice = SluiceHarness.fromFile(cluster, file);
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
    void persistedChangesReloadIdentically() throws Exception {
        String original = Files.readString(file);
        admin.ok(admin.patch("/v1/endpoints/rw", "{\"weights\": {\"primary\": 0, \"ro1\": 1}}"));
        assertThat(Files.readString(file)).as("a change without ?persist=true leaves the file").isEqualTo(original);

        admin.ok(admin.patch("/v1/endpoints/rw?persist=true", """
                {"weights": {"primary": 0, "ro1": 300, "ro2": 100}, "consistency": "session",
                 "consistency-timeout": "25ms", "balancer": "weighted", "allow": ["127.0.0.0/8", "fd00::/8"],
                 "max-replication-lag": "7s", "transaction-splitting": true}"""));
        admin.ok(admin.post("/v1/nodes?persist=true", "{\"name\": \"ro3\", \"address\": \""
                + cluster.node("ro3").address() + "\", \"role\": \"replica\", \"zone\": \"b\", \"capacity\": 2}"));
        admin.ok(admin.post("/v1/endpoints?persist=true", """
                {"name": "reports", "listen": "127.0.0.1:0", "mode": "read-only", "nodes": ["ro2", "ro3"],
                 "max-connections": 50}"""));
        assertThat(Files.readString(file)).contains("reports", "ro3", "fd00::/8");

        try (SluiceHarness reloaded = SluiceHarness.fromFile(cluster, file)) {
            AdminClient again = new AdminClient(reloaded.adminAddress());
            assertThat(settings(again)).as("endpoints and nodes after a restart from the persisted file")
                    .isEqualTo(settings(admin));
            assertThat(again.endpoint("rw").get("weights").get("ro1").asInt()).isEqualTo(300);
            assertThat(again.node("ro3").get("capacity").asInt()).isEqualTo(2);
        }
    }

    @Test
    void theFileIsReplacedAtomically() throws Exception {
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        List<String> torn = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            while (writing.get()) {
                try {
                    SluiceConfig c = ConfigLoader.parse(Files.readString(file));
                    if (c.endpoints().stream().noneMatch(e -> e.name().equals("rw"))) {
                        torn.add("no rw endpoint");
                    }
                    reads.incrementAndGet();
                } catch (Exception | AssertionError e) {
                    torn.add(e.toString());
                }
            }
        }, "config-reader");
        reader.start();
        try {
            for (int i = 1; i <= REWRITES; i++) {
                admin.ok(admin.patch("/v1/endpoints/rw?persist=true", "{\"max-connections\": " + (1000 + i) + "}"));
            }
        } finally {
            writing.set(false);
            reader.join();
        }
        assertThat(torn).as("what a reader of the file saw while it was rewritten %d times", REWRITES).isEmpty();
        assertThat(reads.get()).as("the reader read the file meanwhile").isPositive();
        assertThat(ConfigLoader.load(file).endpoints().stream().filter(e -> e.name().equals("rw")).findFirst()
                .orElseThrow().maxConnections()).isEqualTo(1000 + REWRITES);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.equals(".sluice")))
                    .as("no temporary file left beside the configuration").containsExactly("sluice.yaml");
        }
    }

    /** Every endpoint's settings and the topology, without what moves on its own. */
    private static JsonNode settings(AdminClient client) {
        ObjectNode s = AdminClient.JSON.createObjectNode();
        JsonNode topology = client.topology();
        for (JsonNode n : topology.get("nodes")) {
            ((ObjectNode) n).remove("draining");
        }
        s.set("topology", topology.get("nodes"));
        for (JsonNode e : topology.get("endpoints")) {
            s.set(e.get("name").asText(), client.endpoint(e.get("name").asText()));
        }
        return s;
    }
}
