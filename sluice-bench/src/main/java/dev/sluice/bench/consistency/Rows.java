package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The checker's only statements: an autocommit {@code UPDATE} of one row and a read of one row's
 * value with {@code @@server_id}. Plain text statements ({@code COM_QUERY}), so that what Sluice
 * routes is exactly the SQL written here, hint comments included.
 */
final class Rows {
    private Rows() {
    }

    /** {@code UPDATE table SET v = value WHERE id = row}; exactly one row must change. */
    static void write(Connection c, String table, int row, long value) throws SQLException {
        String sql = "UPDATE " + table + " SET v = " + value + " WHERE id = " + row;
        try (Statement s = c.createStatement()) {
            int changed = s.executeUpdate(sql);
            if (changed != 1) {
                throw new SQLException(changed + " rows changed by: " + sql);
            }
        }
    }

    /** {@code prefix SELECT v, @@server_id FROM table WHERE id = row}; {@code prefix} may carry a hint. */
    static ReadResult read(Connection c, String prefix, String table, int row) throws SQLException {
        String sql = prefix + "SELECT v, @@server_id FROM " + table + " WHERE id = " + row;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new SQLException("no row for: " + sql);
            }
            return new ReadResult(rs.getLong(1), rs.getLong(2));
        }
    }

    /** The first column of a one-row query, or null. */
    static String single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
