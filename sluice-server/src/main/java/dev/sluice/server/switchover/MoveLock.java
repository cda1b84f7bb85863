package dev.sluice.server.switchover;

import java.time.Duration;
import java.util.List;

/**
 * Keeps two moves of the primary apart, whichever Sluice instances run them (BEHAVIOUR §10). Before
 * it changes a node, a switchover or failover takes the named lock {@value #NAME} there, on the
 * connection it changes the node through. MariaDB frees the lock when that
 * connection ends: when the move is over, or when the instance running it dies or loses the node.
 * A second move meets the lock on the first node both would change, and is refused with nothing
 * changed.
 *
 * <p>Instances in cluster mode leave moves to their leader, but a leader can lose its lease in the
 * middle of a failover and a new leader can then be asked for another; instances that share no
 * etcd have no leader at all. Only the nodes themselves see every instance, so the fence is kept
 * there.
 */
final class MoveLock {
    static final String NAME = "sluice_primary_move";
    /**
     * How long a lock held by another connection is waited for: the last move's connections are
     * closed when it ends, and the node frees their lock a moment later. A move in progress holds
     * it for seconds, past this wait.
     */
    static final int WAIT_SECONDS = 2;

    private MoveLock() {
    }

    /**
     * Takes the lock on {@code node} for {@code move} ("failover", or a switchover's leg); refuses
     * the move if another connection holds it.
     */
    static void take(NodeAdmin node, String move, Duration timeout) {
        String sql = "SELECT GET_LOCK('" + NAME + "', " + WAIT_SECONDS + "), IS_USED_LOCK('" + NAME + "')";
        List<String> row = node.query(sql, timeout).rows().get(0);
        if (!"1".equals(row.get(0))) {
            String holder = row.get(1) == null ? "another connection" : "connection " + row.get(1);
            throw SwitchoverException.refused(move + " refused: another switchover or failover is changing '"
                    + node.node().name() + "' right now (" + holder + " there holds the lock " + NAME
                    + "); another Sluice instance runs it, perhaps one that was the cluster's leader until a moment "
                    + "ago; nothing was changed: retry once it is over");
        }
    }
}
