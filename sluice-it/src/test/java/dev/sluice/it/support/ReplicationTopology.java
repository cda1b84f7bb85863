package dev.sluice.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Who replicates from whom, checked and changed through {@link RootClient}: the pieces of a
 * switchover, and the repair that brings any state a test left (a switchover, stopped threads, a
 * delayed replica, a read_only flag flipped) back to node 0 as the writable primary with every
 * other node a read-only replica of it.
 *
 * <p>Every replica is attached with {@code MASTER_USE_GTID=slave_pos} after
 * {@code SET GLOBAL gtid_slave_pos = @@gtid_current_pos}: a former primary's own transactions are
 * in its binlog but not in its slave position, and without that it would ask for them again.
 */
final class ReplicationTopology {

    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration THREADS_START_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final String REPLICATION_USER = "repl";
    private static final String REPLICATION_PASSWORD = "repl";

    private final List<SandboxNode> nodes;
    private final RootClient root;

    ReplicationTopology(List<SandboxNode> nodes, RootClient root) {
        this.nodes = List.copyOf(nodes);
        this.root = root;
    }

    /** Node 0 writable with no source; every other node read-only, replicating from node 0. */
    List<String> problems() {
        List<String> problems = new ArrayList<>();
        SandboxNode primary = nodes.get(0);
        if (isReadOnly(primary)) {
            problems.add(primary.name() + " is read_only");
        }
        ReplicaStatus primaryStatus = root.replicaStatus(primary);
        if (primaryStatus.configured()) {
            problems.add(primary.name() + " replicates: " + primaryStatus);
        }
        for (SandboxNode replica : nodes.subList(1, nodes.size())) {
            if (!isReadOnly(replica)) {
                problems.add(replica.name() + " is writable");
            }
            ReplicaStatus status = awaitConnected(replica);
            if (!status.replicatesFrom(primary)) {
                problems.add(replica.name() + ": " + status);
            }
        }
        return problems;
    }

    /** Brings the cluster back to node 0 as the primary; throws when that cannot be done in place. */
    void repair() {
        SandboxNode primary = nodes.get(0);
        if (stillThePrimary(primary)) {
            repairReplicasOf(primary);
            return;
        }
        for (SandboxNode node : nodes) {
            setReadOnly(node, true);
        }
        // After a switchover, transactions may have been written on another node: node 0 takes
        // them from the most advanced node before it becomes the primary again.
        SandboxNode mostAdvanced = nodes.stream()
                .max(Comparator.comparingLong((SandboxNode n) -> domainZeroSequence(binlogPosition(n)))
                        .thenComparing(n -> n == primary))
                .orElseThrow();
        if (domainZeroSequence(binlogPosition(mostAdvanced)) > domainZeroSequence(binlogPosition(primary))) {
            attach(primary, mostAdvanced);
            awaitPosition(primary, binlogPosition(mostAdvanced), CATCH_UP_TIMEOUT);
        }
        makePrimary(primary);
        for (SandboxNode replica : nodes.subList(1, nodes.size())) {
            attach(replica, primary);
        }
    }

    /**
     * Node 0 writable with no source, and no other node writable: only replicas are wrong (a delay,
     * stopped threads). The primary's read_only is then never touched: a proxy under test watches
     * it, and a primary read-only for a moment would refuse the next test's first write.
     */
    private boolean stillThePrimary(SandboxNode primary) {
        if (isReadOnly(primary) || root.replicaStatus(primary).configured()) {
            return false;
        }
        return nodes.subList(1, nodes.size()).stream().allMatch(this::isReadOnly);
    }

    private void repairReplicasOf(SandboxNode primary) {
        for (SandboxNode replica : nodes.subList(1, nodes.size())) {
            if (!root.replicaStatus(replica).replicatesFrom(primary)) {
                attach(replica, primary);
            }
        }
    }

    /** Moves the primary role to {@code target}; every other node (the old primary too) replicates from it. */
    void switchover(SandboxNode oldPrimary, SandboxNode target) {
        promote(oldPrimary, target);
        repointTo(target);
    }

    /** The first half of a switchover: the old primary turns read_only, the target catches up and turns writable. */
    void promote(SandboxNode oldPrimary, SandboxNode target) {
        setReadOnly(oldPrimary, true);
        awaitPosition(target, binlogPosition(oldPrimary), CATCH_UP_TIMEOUT);
        makePrimary(target);
    }

    /** The second half: every other node (the old primary too) replicates from {@code primary}. */
    void repointTo(SandboxNode primary) {
        for (SandboxNode node : nodes) {
            if (!node.equals(primary)) {
                attach(node, primary);
            }
        }
    }

    /** The node that is writable and has no replication source, if exactly one is. */
    SandboxNode currentPrimary() {
        List<SandboxNode> writable = nodes.stream()
                .filter(n -> !isReadOnly(n) && !root.replicaStatus(n).configured())
                .toList();
        if (writable.size() != 1) {
            throw new SandboxException("cannot tell the current primary: writable nodes without a source are " + writable);
        }
        return writable.get(0);
    }

    void makePrimary(SandboxNode node) {
        root.query(node, "STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF");
    }

    void attach(SandboxNode replica, SandboxNode source) {
        root.query(replica, "STOP SLAVE;"
                + " SET GLOBAL read_only = ON;"
                + " SET GLOBAL gtid_slave_pos = @@gtid_current_pos;"
                + " CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = " + source.port() + ","
                + " MASTER_USER = '" + REPLICATION_USER + "', MASTER_PASSWORD = '" + REPLICATION_PASSWORD + "',"
                + " MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1, MASTER_DELAY = 0;"
                + " START SLAVE");
        awaitThreadsRunning(replica);
    }

    void awaitThreadsRunning(SandboxNode replica) {
        long deadline = System.nanoTime() + THREADS_START_TIMEOUT.toNanos();
        ReplicaStatus status = root.replicaStatus(replica);
        while (!status.threadsRunning()) {
            if (System.nanoTime() > deadline) {
                throw new SandboxException(replica.name() + "'s replication did not start: " + status);
            }
            NodeProcess.sleep(POLL_INTERVAL);
            status = root.replicaStatus(replica);
        }
    }

    /** Waits until {@code node} has applied {@code position}; throws with its replication status if not. */
    void awaitPosition(SandboxNode node, String position, Duration timeout) {
        String result = root.query(node, "SELECT MASTER_GTID_WAIT('" + position + "', " + timeout.toSeconds() + ")", timeout);
        if (!"0".equals(result)) {
            throw new SandboxException(node.name() + " did not reach GTID position " + position + " within "
                    + timeout.toSeconds() + " s: " + root.replicaStatus(node));
        }
    }

    String binlogPosition(SandboxNode node) {
        return root.query(node, "SELECT @@gtid_binlog_pos");
    }

    boolean isReadOnly(SandboxNode node) {
        return "1".equals(root.query(node, "SELECT @@read_only"));
    }

    void setReadOnly(SandboxNode node, boolean readOnly) {
        root.query(node, "SET GLOBAL read_only = " + (readOnly ? "ON" : "OFF"));
    }

    /** A replica whose source just came back shows "Connecting" for a moment: give it that moment. */
    private ReplicaStatus awaitConnected(SandboxNode replica) {
        long deadline = System.nanoTime() + THREADS_START_TIMEOUT.toNanos();
        ReplicaStatus status = root.replicaStatus(replica);
        while ("Connecting".equals(status.ioRunning()) && System.nanoTime() < deadline) {
            NodeProcess.sleep(POLL_INTERVAL);
            status = root.replicaStatus(replica);
        }
        return status;
    }

    /**
     * The sequence number of domain 0 in a MariaDB GTID list ({@code domain-server-sequence,...}),
     * 0 when the list has no domain 0. Every sandbox node writes in domain 0, so within it a higher
     * sequence number means more transactions.
     */
    static long domainZeroSequence(String gtidList) {
        for (String gtid : gtidList.split(",")) {
            String[] parts = gtid.trim().split("-");
            if (parts.length == 3 && parts[0].equals("0")) {
                return Long.parseLong(parts[2]);
            }
        }
        return 0;
    }
}
