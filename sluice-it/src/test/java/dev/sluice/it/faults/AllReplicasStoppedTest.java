package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §4, minimum reserved nodes, when {@code STOP SLAVE} breaks replication on every replica:
 * with {@code min-reserved-nodes: 1} exactly one replica goes on serving reads, the one the rules
 * pick; with 0 reads go to the primary.
 */
class AllReplicasStoppedTest {
    private static final Duration MONITOR_BOUND = Duration.ofSeconds(10);
    /** Long enough for the monitor to check every node a few times (interval 500 ms). */
    private static final Duration SEVERAL_INTERVALS = Duration.ofMillis(1500);

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static ReadTargets reads;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, """
                balancer: weighted
                min-reserved-nodes: 1
                """);
        reads = new ReadTargets(sluice, "rw");
    }

    @AfterAll
    static void stop() throws Exception {
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @BeforeEach
    void everyReplicaServesReads() {
        EndpointSettings.modify(sluice, "rw", "{\"min-reserved-nodes\": 1}");
        await("every replica serves reads").atMost(MONITOR_BOUND)
                .until(() -> reads.nodesServingReads().equals(ReadTargets.names("ro1", "ro2", "ro3")));
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void withOneReservedNodeTheReplicaAlreadyServingReadsStaysWhenTheLastReplicationStops() {
        cluster.stopReplication(cluster.node("ro1"));
        cluster.stopReplication(cluster.node("ro2"));
        await("only ro3, still replicating, serves reads").atMost(MONITOR_BOUND)
                .until(() -> reads.nodesServingReads().equals(ReadTargets.names("ro3")));

        cluster.stopReplication(cluster.node("ro3"));
        await("the monitor sees ro3's replication broken").atMost(MONITOR_BOUND)
                .until(() -> reads.node("ro3").replication().equals("broken"));

        // Rule (1): the replica already serving reads stays — not ro1, first in configuration order.
        long until = System.nanoTime() + SEVERAL_INTERVALS.toNanos();
        do {
            assertThat(reads.nodesServingReads()).as("reads with every replica stopped, one reserved node")
                    .containsExactly("ro3");
            assertThat(reads.readableReplicas()).containsExactly("ro3");
        } while (System.nanoTime() < until);
    }

    @Test
    void withNoReservedNodeReadsGoToThePrimaryAndWithOneTheFirstReplicaInConfigurationOrderTakesThem() {
        EndpointSettings.modify(sluice, "rw", "{\"min-reserved-nodes\": 0}");
        for (SandboxNode replica : cluster.replicas()) {
            cluster.stopReplication(replica);
        }
        await("every replica seen broken").atMost(MONITOR_BOUND).until(() -> cluster.replicas().stream()
                .allMatch(r -> reads.node(r.name()).replication().equals("broken")));

        assertThat(reads.readableReplicas()).as("readable replicas, none reserved").isEmpty();
        assertThat(reads.nodesServingReads()).as("reads with every replica stopped, no reserved node")
                .containsExactly("primary");

        // None serves reads now, all are equally broken with equal weights: configuration order decides.
        EndpointSettings.modify(sluice, "rw", "{\"min-reserved-nodes\": 1}");
        assertThat(reads.readableReplicas()).containsExactly("ro1");
        assertThat(reads.nodesServingReads()).as("reads with every replica stopped, one reserved node")
                .containsExactly("ro1");
    }
}
