package dev.sluice.server.switchover;

import dev.sluice.routing.topology.Node;
import dev.sluice.server.config.MonitorConfig;
import dev.sluice.server.runtime.ProxyRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Waits for the monitor to have seen a node writable before the held writes go to it. Sluice
 * refuses a write to a primary its topology shows read-only (1290, BEHAVIOUR §10), and a monitor
 * check that began before the node turned writable can still be answered after: applied then, it
 * would mark the new primary read-only again for an interval, and the released writes would be
 * refused. A node's checks run one at a time, so once the monitor has recorded the node writable,
 * no older check can follow.
 */
final class MonitorAgreement {
    private static final long POLL_MILLIS = 10;

    private MonitorAgreement() {
    }

    /**
     * After the target was promoted: returns once the monitor recorded it writable, or after two
     * intervals and a check's timeouts (a monitor that is this late is told nothing by waiting).
     */
    static void awaitSeenWritable(ProxyRuntime runtime, int nodeId) {
        MonitorConfig m = runtime.config().monitor();
        runtime.checkNow(nodeId);
        long deadline = System.nanoTime() + m.interval().multipliedBy(2).plus(checkBound(m)).toNanos();
        while (System.nanoTime() < deadline && !seenWritable(runtime, nodeId)) {
            SessionDrain.sleep(POLL_MILLIS);
        }
    }

    /**
     * After the old primary's fence was lifted, whether or not the monitor saw it: a check that
     * was running then ends within the check's bound; one that recorded it read-only is
     * followed, within an interval, by one that sees it writable again.
     */
    static void awaitSettledWritable(ProxyRuntime runtime, int nodeId) {
        MonitorConfig m = runtime.config().monitor();
        SessionDrain.sleep(checkBound(m).toMillis());
        awaitSeenWritable(runtime, nodeId);
    }

    /**
     * After the repointed nodes were seen replicating: returns once the monitor has seen it too (or
     * after two intervals and a check's timeouts), so that the answer leaves a topology in which
     * the next switchover can choose them — the monitor may have looked while their I/O thread was
     * still connecting.
     */
    static void awaitSeenReplicating(ProxyRuntime runtime, List<Integer> nodeIds) {
        MonitorConfig m = runtime.config().monitor();
        nodeIds.forEach(runtime::checkNow);
        long deadline = System.nanoTime() + m.interval().multipliedBy(2).plus(checkBound(m)).toNanos();
        while (System.nanoTime() < deadline && !nodeIds.stream().allMatch(id -> seenReplicating(runtime, id))) {
            SessionDrain.sleep(POLL_MILLIS);
        }
    }

    private static boolean seenReplicating(ProxyRuntime runtime, int nodeId) {
        Optional<Node> n = runtime.topology().node(nodeId);
        return n.isEmpty() || (n.get().state().reachable() && !n.get().state().replicationBroken());
    }

    private static Duration checkBound(MonitorConfig m) {
        return m.connectTimeout().plus(m.queryTimeout());
    }

    private static boolean seenWritable(ProxyRuntime runtime, int nodeId) {
        Optional<Node> n = runtime.topology().node(nodeId);
        return n.isPresent() && n.get().state().reachable() && !n.get().state().readOnly();
    }
}
