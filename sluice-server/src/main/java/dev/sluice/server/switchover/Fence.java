package dev.sluice.server.switchover;

import dev.sluice.server.backend.QueryResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops every write on the old primary, whatever the accounts' privileges (BEHAVIOUR §10):
 * <ol>
 * <li>{@code read_only}: ordinary accounts' writes are refused from now on;</li>
 * <li>the connections that do not come through Sluice are ended ({@link ForeignConnections}):
 *     read_only does not stop an account with READ_ONLY ADMIN, which {@code ALL PRIVILEGES}
 *     gives, and ending them also rolls back their open transactions;</li>
 * <li>{@code FLUSH TABLES WITH READ LOCK} on the switchover's connection: such an account that
 *     connects again still cannot commit, so the position read next is the last one.</li>
 * </ol>
 * The lock is held until the target is promoted. FLUSH TABLES WITH READ LOCK alone would do
 * without the first two, but it waits for every running statement, including a foreign one that
 * runs for minutes; read_only plus ending the connections make that wait short and bounded.
 */
final class Fence {
    private static final Logger LOG = LoggerFactory.getLogger(Fence.class);
    private static final String PROCESSLIST = "SELECT ID, USER, COMMAND FROM information_schema.PROCESSLIST";

    private Fence() {
    }

    /** Fences {@code old}; returns its last GTID position. */
    static String raise(NodeAdmin old, String sluiceUser, Duration statementTimeout) {
        old.query(ReplicationStatements.READ_ONLY, statementTimeout);
        QueryResult list = old.query(PROCESSLIST, statementTimeout);
        List<ForeignConnections.Connection> rows = new ArrayList<>();
        for (List<String> row : list.rows()) {
            rows.add(new ForeignConnections.Connection(Long.parseLong(row.get(0)), String.valueOf(row.get(1)),
                    String.valueOf(row.get(2))));
        }
        List<Long> foreign = ForeignConnections.toEnd(rows, old.threadId(), sluiceUser);
        for (long id : foreign) {
            // One already gone answers "Unknown thread id": that is the outcome wanted.
            old.result("KILL CONNECTION " + id, statementTimeout);
        }
        if (!foreign.isEmpty()) {
            LOG.info("switchover: ended {} connection(s) on '{}' that did not come through Sluice: {}", foreign.size(),
                    old.node().name(), foreign);
        }
        old.query("SET SESSION lock_wait_timeout = " + Math.max(1, statementTimeout.toSeconds()), statementTimeout);
        old.query("FLUSH TABLES WITH READ LOCK", statementTimeout);
        return old.query("SELECT @@gtid_binlog_pos", statementTimeout).rows().get(0).get(0);
    }

    /** Lifts the fence: the old primary takes writes again (the switchover was called off). */
    static void lower(NodeAdmin old, Duration statementTimeout) {
        old.query("UNLOCK TABLES", statementTimeout);
        old.query(ReplicationStatements.WRITABLE, statementTimeout);
    }
}
