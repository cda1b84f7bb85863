package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * The checker's tables, one per workload so their rows never interfere: {@code (id, v)} with one
 * row per session (or writer). Created on the primary in the database of the URLs, and kept:
 * values only grow (each run starts above the last), so old rows never look fresh.
 */
final class Schema {
    /**
     * How long the replicas may take to catch up with the schema, or after the slowdown (which can
     * leave them minutes behind on a busy machine).
     */
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(300);
    /** The wait returns by itself at its timeout; the socket must outlast it. */
    private static final Duration SOCKET_SLACK = Duration.ofSeconds(30);

    private Schema() {
    }

    static void prepare(Connection primary, int sessions, int writers) throws SQLException {
        create(primary, ReadYourWrites.TABLE, sessions);
        create(primary, CrossSessionReads.TABLE, writers);
        create(primary, TokenHandoff.TABLE, sessions);
    }

    private static void create(Connection primary, String table, int rows) throws SQLException {
        StringBuilder insert = new StringBuilder("INSERT IGNORE INTO " + table + " (id, v) VALUES ");
        for (int id = 1; id <= rows; id++) {
            insert.append(id == 1 ? "" : ", ").append('(').append(id).append(", 0)");
        }
        try (Statement s = primary.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + table + " (id INT PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB");
            s.execute(insert.toString());
        }
    }

    /**
     * Waits until every replica has applied {@code position} (the server's own
     * {@code MASTER_GTID_WAIT}), so no run starts against a replica missing its table.
     */
    static void awaitReplicas(Connections connections, List<String> replicas, String position) throws SQLException {
        for (String url : replicas) {
            try (Connection c = connections.open(url, CATCH_UP_TIMEOUT.plus(SOCKET_SLACK))) {
                String reached = Rows.single(c, "SELECT MASTER_GTID_WAIT('" + position + "', "
                        + CATCH_UP_TIMEOUT.toSeconds() + ")");
                if (!"0".equals(reached)) {
                    throw new SQLException("replica " + url + " did not reach " + position + " within "
                            + CATCH_UP_TIMEOUT.toSeconds() + " s");
                }
            }
        }
    }
}
