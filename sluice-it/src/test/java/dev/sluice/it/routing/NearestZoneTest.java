package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §2, nearest zone, through the running proxy: Sluice in zone b, ro2 the only replica
 * there. An endpoint with {@code prefer-same-zone: true} reads from ro2 while it is readable, from
 * ro1 and ro3 (zone a) when its replication is stopped, and from ro2 again once it runs.
 */
class NearestZoneTest {
    private static final int READS = 30;
    private static final Duration BOUND = Duration.ofSeconds(30);

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        String nodes = SluiceHarness.nodesYaml(cluster)
                .replaceAll("(\\{name: (ro1|ro3), [^}]*)}", "$1, zone: a}")
                .replaceAll("(\\{name: ro2, [^}]*)}", "$1, zone: b}");
        assertThat(nodes).contains("zone: a", "zone: b");
        sluice = SluiceHarness.fromYaml(cluster, "zone: b\n" + nodes + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}
                    balancer: weighted
                    prefer-same-zone: true
                """);
        AdminView.awaitReadable(sluice, "rw", "ro1", "ro2", "ro3");
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    /** Where {@value #READS} reads of one new connection ran. */
    private static Set<String> readsRunOn() throws Exception {
        Set<String> where = new HashSet<>();
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
            for (int i = 0; i < READS; i++) {
                where.add(names.where(s, "SELECT @@server_id"));
            }
        }
        return where;
    }

    @Test
    void readsStayInTheZoneWhileItsReplicaIsReadableAndMoveWhenItIsNot() throws Exception {
        assertThat(readsRunOn()).as("ro2 is the only replica in Sluice's zone").containsExactly("ro2");

        cluster.stopReplication(cluster.node("ro2"));
        await("reads leave zone b").atMost(BOUND).pollInterval(Duration.ofMillis(200))
                .until(() -> !readsRunOn().contains("ro2"));
        assertThat(readsRunOn()).as("with ro2 unreadable, both replicas of zone a read")
                .containsExactlyInAnyOrder("ro1", "ro3");

        cluster.startReplication(cluster.node("ro2"));
        await("reads come back to zone b").atMost(BOUND).pollInterval(Duration.ofMillis(200))
                .until(() -> readsRunOn().equals(Set.of("ro2")));
    }
}
