package dev.sluice.server.switchover;

import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.config.ReplicationAccount;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Points every node but the new primary at it — the other replicas and the old primary — with the
 * replication account and {@code MASTER_USE_GTID=slave_pos}, then checks that each one's
 * replication runs ({@link ReplicaThreads}). The new primary is already writable by then, so a node
 * that cannot be pointed, or whose replication does not start, is reported as a warning for the
 * operator rather than undoing the switchover; for the same reason the check runs after the held
 * writes are released (its outcome cannot change what happens to them).
 */
final class Repointing implements AutoCloseable {
    /** How long a node's replication may take to start before it is reported. */
    private static final Duration START_BOUND = Duration.ofSeconds(5);
    private static final long POLL_MILLIS = 20;

    private final ProxyRuntime runtime;
    private final EventLoop loop;
    private final LoginRequest login;
    private final ReplicationAccount account;
    private final Duration statementTimeout;
    private final List<NodeAdmin> opened = new ArrayList<>();
    private final List<NodeAdmin> pointed = new java.util.concurrent.CopyOnWriteArrayList<>();

    Repointing(ProxyRuntime runtime, EventLoop loop, LoginRequest login, ReplicationAccount account,
            Duration statementTimeout) {
        this.runtime = runtime;
        this.loop = loop;
        this.login = login;
        this.account = account;
        this.statementTimeout = statementTimeout;
    }

    /**
     * Opens a connection to every node but {@code primary} (the target), ahead of the hold, so that
     * pointing them later costs no login; returns warnings for the nodes that cannot be reached.
     */
    List<String> connect(NodeRef primary, Node oldPrimary) {
        return connect(primary, oldPrimary, true);
    }

    /** As {@link #connect(NodeRef, Node)}, leaving out the old primary: a failover's, which is gone. */
    List<String> connectReplicas(NodeRef primary, Node deadPrimary) {
        return connect(primary, deadPrimary, false);
    }

    private List<String> connect(NodeRef primary, Node oldPrimary, boolean withOldPrimary) {
        List<String> warnings = new ArrayList<>();
        for (Node n : runtime.topology().nodes()) {
            if (n.id() == primary.id() || (!withOldPrimary && n.id() == oldPrimary.id())) {
                continue;
            }
            if (!n.state().reachable() && n.id() != oldPrimary.id()) {
                warnings.add("'" + n.name() + "' was unreachable and still replicates from '" + oldPrimary.name()
                        + "': point it at '" + primary.name() + "' when it is back");
                continue;
            }
            try {
                opened.add(NodeAdmin.open(runtime.connector(), loop, runtime.ref(n), login, statementTimeout));
            } catch (SwitchoverException e) {
                warnings.add("'" + n.name() + "' could not be pointed at '" + primary.name() + "': " + e.getMessage());
            }
        }
        return warnings;
    }

    /**
     * Points every node connected at {@code primary}, all at once (each waits for its own STOP
     * SLAVE, which on a busy replica takes a while); returns warnings for those that could not be.
     */
    List<String> pointAt(NodeRef primary, Node oldPrimary) {
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> running = new ArrayList<>();
        for (NodeAdmin admin : opened) {
            Thread t = new Thread(() -> {
                try {
                    attach(admin, primary, admin.node().id() == oldPrimary.id());
                    pointed.add(admin);
                } catch (RuntimeException e) {
                    warnings.add("'" + admin.node().name() + "' could not be pointed at '" + primary.name() + "': "
                            + e.getMessage());
                }
            }, "sluice-switchover-" + admin.node().name());
            t.setDaemon(true);
            t.start();
            running.add(t);
        }
        for (Thread t : running) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SwitchoverException("interrupted while pointing the nodes at '" + primary.name() + "'", e);
            }
        }
        return new ArrayList<>(warnings);
    }

    /**
     * Waits for each node pointed to replicate from {@code primary}, then for the monitor to see
     * those that do; returns the warnings for those that do not.
     */
    List<String> checkRunning(NodeRef primary) {
        List<String> warnings = new ArrayList<>();
        List<Integer> running = new ArrayList<>();
        for (NodeAdmin admin : pointed) {
            ReplicaThreads.Reading r;
            try {
                r = awaitRunning(admin);
            } catch (SwitchoverException e) {
                r = new ReplicaThreads.Reading(ReplicaThreads.State.FAILED, e.getMessage());
            }
            if (r.state() != ReplicaThreads.State.RUNNING) {
                warnings.add("'" + admin.node().name() + "' does not replicate from '" + primary.name() + "': "
                        + r.detail());
            } else {
                running.add(admin.node().id());
            }
        }
        MonitorAgreement.awaitSeenReplicating(runtime, running);
        return warnings;
    }

    @Override
    public void close() {
        opened.forEach(NodeAdmin::close);
    }

    private void attach(NodeAdmin node, NodeRef source, boolean formerPrimary) {
        node.query(ReplicationStatements.READ_ONLY, statementTimeout);
        node.query(ReplicationStatements.STOP, statementTimeout);
        if (formerPrimary) {
            node.query(ReplicationStatements.OWN_POSITION_AS_SLAVE_POSITION, statementTimeout);
        }
        node.query(ReplicationStatements.changeMaster(source.address(), account), statementTimeout);
        node.query(ReplicationStatements.START, statementTimeout);
    }

    private ReplicaThreads.Reading awaitRunning(NodeAdmin node) {
        long deadline = System.nanoTime() + START_BOUND.toNanos();
        while (true) {
            ReplicaThreads.Reading r = ReplicaThreads.of(node.result(ReplicationStatements.STATUS, statementTimeout));
            if (r.state() != ReplicaThreads.State.STARTING || System.nanoTime() > deadline) {
                return r;
            }
            SessionDrain.sleep(POLL_MILLIS);
        }
    }
}
