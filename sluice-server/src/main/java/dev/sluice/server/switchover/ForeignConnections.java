package dev.sluice.server.switchover;

import java.util.List;
import java.util.Set;

/**
 * Which connections of the old primary a switchover ends once it is read-only (BEHAVIOUR §10).
 * {@code read_only} does not stop an account holding READ_ONLY ADMIN (or SUPER, on older
 * servers), and an application's {@code ALL PRIVILEGES} includes it: so every client connection
 * that does not come through Sluice is ended. Kept: the switchover's own connection, Sluice's own
 * account (the monitor's checks), the server's threads and the replicas' binlog readers. Sluice's
 * session connections are closed by their sessions before this runs. Pure.
 */
public final class ForeignConnections {
    private static final Set<String> SERVER_USERS = Set.of("system user", "event_scheduler");
    private static final Set<String> SERVER_COMMANDS = Set.of("Binlog Dump", "Binlog Dump GTID", "Daemon",
            "Slave_IO", "Slave_SQL", "Slave_worker");

    private ForeignConnections() {
    }

    /** One row of {@code information_schema.PROCESSLIST}. */
    public record Connection(long id, String user, String command) {
    }

    public static List<Long> toEnd(List<Connection> processlist, long ownId, String sluiceUser) {
        return processlist.stream()
                .filter(c -> c.id() != ownId && !c.user().equals(sluiceUser) && !SERVER_USERS.contains(c.user())
                        && !SERVER_COMMANDS.contains(c.command()))
                .map(Connection::id)
                .toList();
    }
}
