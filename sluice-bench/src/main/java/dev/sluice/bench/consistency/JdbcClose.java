package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.SQLException;

/** Closing a connection that may already be broken: the checker has counted the error before. */
final class JdbcClose {
    private JdbcClose() {
    }

    static void quietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            // Already broken: the failure that broke it was recorded where it happened.
        }
    }
}
