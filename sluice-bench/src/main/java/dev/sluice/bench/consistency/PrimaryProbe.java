package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A direct connection to the primary, bypassing Sluice: to create the schema, to tell the
 * primary's answers from the replicas' ({@code @@server_id}), and to count the statements the
 * primary runs ({@code Questions}) while a level is under load. Used by the main thread only.
 */
final class PrimaryProbe implements AutoCloseable {
    private final Connection connection;

    private PrimaryProbe(Connection connection) {
        this.connection = connection;
    }

    static PrimaryProbe open(Connections connections, String url) throws SQLException {
        return new PrimaryProbe(connections.open(url));
    }

    Connection connection() {
        return connection;
    }

    long serverId() throws SQLException {
        return Long.parseLong(Rows.single(connection, "SELECT @@server_id"));
    }

    String version() throws SQLException {
        return Rows.single(connection, "SELECT VERSION()");
    }

    /** The primary's GTID position (MariaDB {@code gtid_binlog_pos}). */
    String gtidPosition() throws SQLException {
        return Rows.single(connection, "SELECT @@gtid_binlog_pos");
    }

    /**
     * The primary's statement counters, read in one statement: {@code Questions} (every statement
     * clients sent) and {@code Com_update} (the checker's writes: nothing else updates rows there).
     */
    StatementCounts statementCounts() throws SQLException {
        long questions = -1;
        long updates = -1;
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_update')")) {
            while (rs.next()) {
                if (rs.getString(1).equalsIgnoreCase("Questions")) {
                    questions = rs.getLong(2);
                } else {
                    updates = rs.getLong(2);
                }
            }
        }
        if (questions < 0 || updates < 0) {
            throw new SQLException("the primary did not report its Questions and Com_update counters");
        }
        return new StatementCounts(questions, updates);
    }

    /** {@code Questions} and {@code Com_update} at one moment. */
    record StatementCounts(long questions, long updates) {
        /**
         * Statements between {@code earlier} and this reading that were not the checker's writes,
         * less the {@code SHOW} that took this reading (it counts itself).
         */
        long othersSince(StatementCounts earlier) {
            return Math.max(0, (questions - earlier.questions) - (updates - earlier.updates) - 1);
        }
    }

    @Override
    public void close() {
        JdbcClose.quietly(connection);
    }
}
