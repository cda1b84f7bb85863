package dev.sluice.server.switchover;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.config.ReplicationAccount;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.EventLoop;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary a failover left behind, when it answers again (BEHAVIOUR §10). Sluice first makes it
 * read-only (its own configuration may make it writable at start), then compares what it wrote with
 * the new primary's position at the promotion ({@link #unshipped}): every transaction of it
 * contained there, it is pointed at the new primary and takes reads again as a replica; otherwise
 * it wrote commits that never reached any replica, it stays read-only and out of traffic, and is
 * shown {@code diverged} with how many such commits it holds, until an operator rebuilds it. The
 * position at the promotion is the one to compare with, not the new primary's current one: a
 * MariaDB position keeps one sequence number per domain, and the new primary's own writes would
 * soon pass the old primary's sequence numbers without containing its transactions.
 */
final class FormerPrimary {
    private static final Logger LOG = LoggerFactory.getLogger(FormerPrimary.class);
    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration START_BOUND = Duration.ofSeconds(5);
    private static final long POLL_MILLIS = 20;

    private FormerPrimary() {
    }

    /** Transactions of {@code itsPosition} the new primary did not have at its promotion; 0: it may rejoin. Pure. */
    static long unshipped(GtidPosition promotedAt, GtidPosition itsPosition) {
        return promotedAt.missingCount(itsPosition);
    }

    /** What became of it: {@code rejoined} or {@code diverged}, and a message for the operator. */
    record Verdict(String state, long unshipped, String position, String message) {
    }

    /** Fences, judges and, when it may, repoints the former primary {@code old} at {@code primary}. */
    static Verdict rejoin(ProxyRuntime runtime, EventLoop loop, LoginRequest login, ReplicationAccount account,
            NodeRef old, NodeRef primary, GtidPosition promotedAt) {
        try (NodeAdmin node = NodeAdmin.open(runtime.connector(), loop, old, login, STATEMENT_TIMEOUT)) {
            node.query(ReplicationStatements.READ_ONLY, STATEMENT_TIMEOUT);
            String at = node.query("SELECT @@gtid_binlog_pos", STATEMENT_TIMEOUT).rows().get(0).get(0);
            GtidPosition its = GtidPosition.parse(at == null ? "" : at).orElseThrow(() -> new SwitchoverException(
                    "'" + old.name() + "' reported a GTID position Sluice cannot read: " + at));
            long lost = unshipped(promotedAt, its);
            if (lost > 0) {
                String message = "'" + old.name() + "' is back and diverged: it holds " + lost + " transaction(s) "
                        + "(its position " + its + ") that '" + primary.name() + "' did not have when it was "
                        + "promoted (" + promotedAt + "): commits that never reached a replica, acknowledged to "
                        + "clients unless they still waited for a semi-synchronous acknowledgement when it died "
                        + "(with rpl_semi_sync_master_wait_point AFTER_SYNC and a restart with "
                        + "--init-rpl-role=SLAVE, its crash recovery rolls those back). It stays read-only and takes "
                        + "no traffic; rebuild it from '" + primary.name() + "' (or recover those transactions from "
                        + "its binary log first)";
                LOG.error(message);
                return new Verdict("diverged", lost, its.toString(), message);
            }
            node.query(ReplicationStatements.STOP, STATEMENT_TIMEOUT);
            node.query(ReplicationStatements.OWN_POSITION_AS_SLAVE_POSITION, STATEMENT_TIMEOUT);
            node.query(ReplicationStatements.changeMaster(primary.address(), account), STATEMENT_TIMEOUT);
            node.query(ReplicationStatements.START, STATEMENT_TIMEOUT);
            ReplicaThreads.Reading r = awaitRunning(node);
            if (r.state() != ReplicaThreads.State.RUNNING) {
                String message = "'" + old.name() + "' is back and contained in '" + primary.name() + "', but does "
                        + "not replicate from it: " + r.detail() + "; it stays read-only and takes no traffic";
                LOG.warn(message);
                return new Verdict("not-replicating", 0, its.toString(), message);
            }
            runtime.topologyHolder().update(t -> t.withDraining(old.name(), false));
            runtime.checkNow(old.id());
            String message = "'" + old.name() + "' is back, contained in '" + primary.name() + "' (its position "
                    + its + "), and replicates from it as a read-only replica";
            LOG.info(message);
            return new Verdict("rejoined", 0, its.toString(), message);
        }
    }

    private static ReplicaThreads.Reading awaitRunning(NodeAdmin node) {
        long deadline = System.nanoTime() + START_BOUND.toNanos();
        while (true) {
            ReplicaThreads.Reading r = ReplicaThreads.of(node.result(ReplicationStatements.STATUS, STATEMENT_TIMEOUT));
            if (r.state() != ReplicaThreads.State.STARTING || System.nanoTime() > deadline) {
                return r;
            }
            SessionDrain.sleep(POLL_MILLIS);
        }
    }
}
