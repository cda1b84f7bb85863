package dev.sluice.server.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Listeners are handed the newest snapshot last, however the updates of several threads cross. */
class TopologyHolderTest {

    private static Topology healthy() {
        Topology t = Topology.empty().withNode("primary", "h:1", NodeRole.PRIMARY)
                .withState("primary", NodeState.primary(MariaDbGtidList.EMPTY));
        for (String name : new String[] {"ro1", "ro2"}) {
            t = t.withNode(name, "h:" + name, NodeRole.REPLICA).withState(name, NodeState.replica(ReplicationLag.NONE));
        }
        return t;
    }

    private static UnaryOperator<Topology> replicationBroken(String name) {
        return t -> t.withState(name, t.node(name).orElseThrow().state().withReplicationThreads(false, true));
    }

    private static boolean broken(Topology t, String name) {
        return t.node(name).orElseThrow().state().replicationBroken();
    }

    /**
     * Two monitor loops each report a replica's replication broken. The first update's delivery is
     * held after its snapshot was published, until the second update has run (or is waiting to
     * deliver): handing each listener its own update's snapshot would leave the first — where only
     * ro1 is broken — last, and an endpoint would go on reading from ro2.
     */
    @Test
    void aDeliveryOvertakenByANewerUpdateNeverLeavesTheOlderSnapshotLast() throws Exception {
        TopologyHolder holder = new TopologyHolder(healthy());
        CountDownLatch firstDeliveryHeld = new CountDownLatch(1);
        AtomicReference<Thread> second = new AtomicReference<>();
        List<Topology> seen = Collections.synchronizedList(new ArrayList<>());
        holder.addListener(t -> {
            if (broken(t, "ro1") && !broken(t, "ro2") && firstDeliveryHeld.getCount() == 1) {
                firstDeliveryHeld.countDown();
                waitUntilRunOrWaiting(second);
            }
            seen.add(t);
        });
        Thread first = new Thread(() -> holder.update(replicationBroken("ro1")));
        first.start();
        assertThat(firstDeliveryHeld.await(10, TimeUnit.SECONDS)).isTrue();
        Thread next = new Thread(() -> holder.update(replicationBroken("ro2")));
        second.set(next);
        next.start();
        first.join(10_000);
        next.join(10_000);

        assertThat(seen).isNotEmpty();
        Topology last = seen.get(seen.size() - 1);
        assertThat(broken(last, "ro1") && broken(last, "ro2")).as("the last snapshot a listener was handed")
                .isTrue();
        assertThat(last).isSameAs(holder.current());
    }

    @Test
    void aListenerThatUpdatesTheTopologyLeavesTheOthersWithTheNewerSnapshot() {
        TopologyHolder holder = new TopologyHolder(healthy());
        List<Topology> later = new ArrayList<>();
        holder.addListener(t -> {
            if (broken(t, "ro1") && !broken(t, "ro2")) {
                holder.update(replicationBroken("ro2"));
            }
        });
        holder.addListener(later::add);
        holder.update(replicationBroken("ro1"));

        assertThat(later).hasSize(1);
        assertThat(later.get(0)).isSameAs(holder.current());
    }

    @Test
    void anUpdateThatChangesNothingTellsNoOne() {
        TopologyHolder holder = new TopologyHolder(healthy());
        List<Topology> seen = new ArrayList<>();
        holder.addListener(seen::add);
        holder.update(t -> t);
        assertThat(seen).isEmpty();
    }

    private static void waitUntilRunOrWaiting(AtomicReference<Thread> thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Thread t = thread.get();
            if (t != null && (t.getState() == Thread.State.TERMINATED || t.getState() == Thread.State.BLOCKED)) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the second update neither ran nor waited");
    }
}
