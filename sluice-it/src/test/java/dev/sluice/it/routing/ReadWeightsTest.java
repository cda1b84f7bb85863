package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §2 through the running proxy: read weights decide where autocommit reads go, the primary's
 * weight 0 keeps reads off it, and the {@code weighted} balancer picks in exactly the smooth
 * weighted round-robin order BEHAVIOUR §2 spells out. {@code @@server_id} says which node answered.
 */
class ReadWeightsTest {
    private static final int READS = 10_000;
    private static final int CLIENTS = 4;
    private static final String WEIGHTS_0_100_200 = "nodes: [primary, ro1, ro2, ro3]\n"
            + "weights: {primary: 0, ro1: 100, ro2: 200, ro3: 0}\n";
    private static SandboxCluster cluster;
    private static NodeNames names;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
    }

    @AfterAll
    static void noLeaks() throws InterruptedException {
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void tenThousandReadsSplitOneToTwoBetweenReplicasAndNoneReachThePrimary() throws Exception {
        try (SluiceHarness sluice = SluiceHarness.readWrite(cluster, WEIGHTS_0_100_200 + "balancer: weighted")) {
            AdminView.awaitReadable(sluice, "rw", "ro1", "ro2");
            Map<String, Long> counts = readConcurrently(sluice.mariadbUrl("rw", ""));
            assertOneToTwo(counts);
        }
    }

    @Test
    void theDefaultLeastActiveBalancerAlsoFollowsTheWeightsUnderConcurrentLoad() throws Exception {
        try (SluiceHarness sluice = SluiceHarness.readWrite(cluster, WEIGHTS_0_100_200)) {
            AdminView.awaitReadable(sluice, "rw", "ro1", "ro2");
            Map<String, Long> counts = readConcurrently(sluice.mariadbUrl("rw", ""));
            assertThat(counts).as("least-active reads per node").doesNotContainKeys("primary", "ro3");
            assertThat(counts.getOrDefault("ro1", 0L) + counts.getOrDefault("ro2", 0L)).isEqualTo(READS);
            // least-active answers load, not a fixed order: both replicas must work, the heavier one more.
            assertThat(counts.getOrDefault("ro2", 0L)).as("ro2 (weight 200) vs ro1 (100): " + counts)
                    .isGreaterThan(counts.getOrDefault("ro1", 0L));
            assertThat(counts.getOrDefault("ro1", 0L)).as("ro1 gets reads too: " + counts).isPositive();
        }
    }

    @Test
    void oneClientSeesTheExactSmoothWeightedSequenceOfTheSpecExample() throws Exception {
        // BEHAVIOUR §2's own example: weights primary 100, ro1 200, ro2 200, all `current` at 0.
        String policy = "nodes: [primary, ro1, ro2]\nweights: {primary: 100, ro1: 200, ro2: 200}\nbalancer: weighted";
        try (SluiceHarness sluice = SluiceHarness.readWrite(cluster, policy)) {
            AdminView.awaitReadable(sluice, "rw", "ro1", "ro2");
            List<String> picks = picksOfOneClient(sluice, 11);
            assertThat(picks).as("smooth weighted round-robin through Sluice").containsExactly(
                    "primary", "ro1", "ro2", "ro1", "ro2",
                    "primary", "ro1", "ro2", "ro1", "ro2",
                    "primary");
        }
    }

    @Test
    void oneClientSeesTheExactSmoothWeightedSequenceForWeights0And100And200() throws Exception {
        try (SluiceHarness sluice = SluiceHarness.readWrite(cluster, WEIGHTS_0_100_200 + "balancer: weighted")) {
            AdminView.awaitReadable(sluice, "rw", "ro1", "ro2");
            List<String> picks = picksOfOneClient(sluice, 30);
            List<String> nodes = List.of("primary", "ro1", "ro2", "ro3");
            assertThat(picks).isEqualTo(smoothWeighted(nodes, new int[] {0, 100, 200, 0}, 30));
            // Worked by hand: currents (ro1, ro2) 0,0 -> ro1 (tie, first) -> -200,200 -> ro2 -> -100,100
            // -> ro2 -> 0,0, and again: ro1, ro2, ro2 every three reads.
            assertThat(picks.subList(0, 6)).containsExactly("ro1", "ro2", "ro2", "ro1", "ro2", "ro2");
        }
    }

    /** The BEHAVIOUR §2 algorithm, written out: highest current (first on ties), minus the total, plus each weight. */
    private static List<String> smoothWeighted(List<String> nodes, int[] weights, int rounds) {
        long[] current = new long[weights.length];
        long total = 0;
        for (int w : weights) {
            total += w;
        }
        List<String> picks = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            int best = -1;
            for (int i = 0; i < weights.length; i++) {
                if (weights[i] > 0 && (best < 0 || current[i] > current[best])) {
                    best = i;
                }
            }
            picks.add(nodes.get(best));
            current[best] -= total;
            for (int i = 0; i < weights.length; i++) {
                current[i] += weights[i];
            }
        }
        return picks;
    }

    /**
     * A bare client that sends nothing but the reads (a JDBC driver's own start-up queries would
     * take turns of the round-robin too), on a fresh endpoint whose round-robin state is at 0.
     */
    private static List<String> picksOfOneClient(SluiceHarness sluice, int reads) throws Exception {
        List<String> picks = new ArrayList<>();
        try (RawMysqlClient client = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", Duration.ofSeconds(10))) {
            for (int i = 0; i < reads; i++) {
                List<List<String>> rows = client.query("SELECT @@server_id");
                picks.add(names.name(Long.parseLong(rows.get(0).get(0))));
            }
        }
        return picks;
    }

    private static Map<String, Long> readConcurrently(String url) throws Exception {
        Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(pool.submit(() -> {
                    try (Connection connection = DriverManager.getConnection(url);
                            Statement s = connection.createStatement()) {
                        for (int i = 0; i < READS / CLIENTS; i++) {
                            counts.computeIfAbsent(names.where(s, "SELECT @@server_id"), k -> new LongAdder())
                                    .increment();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, Long> result = new TreeMap<>();
        counts.forEach((node, n) -> result.put(node, n.sum()));
        return result;
    }

    private static void assertOneToTwo(Map<String, Long> counts) {
        assertThat(counts).as("reads per node").doesNotContainKeys("primary", "ro3");
        long ro1 = counts.getOrDefault("ro1", 0L);
        long ro2 = counts.getOrDefault("ro2", 0L);
        assertThat(ro1 + ro2).as("reads answered: " + counts).isEqualTo(READS);
        double ratio = (double) ro2 / ro1;
        assertThat(ratio).as("ro2:ro1 (want 2 within 2 %%): %s", counts).isBetween(2 * 0.98, 2 * 1.02);
    }
}
