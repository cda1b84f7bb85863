package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/**
 * Opens JDBC connections the way every workload needs them: autocommit, and a socket timeout so
 * that a proxy that stops answering shows up as an error in the results instead of a run that
 * never ends.
 */
final class Connections {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final String user;
    private final String password;
    private final Duration queryTimeout;

    Connections(String user, String password, Duration queryTimeout) {
        this.user = user;
        this.password = password;
        this.queryTimeout = queryTimeout;
    }

    Connection open(String url) throws SQLException {
        return open(url, queryTimeout);
    }

    /** For statements that wait on purpose ({@code MASTER_GTID_WAIT}): a socket timeout beyond their own. */
    Connection open(String url, Duration socketTimeout) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
        properties.setProperty("connectTimeout", Long.toString(CONNECT_TIMEOUT.toMillis()));
        Connection c = DriverManager.getConnection(url, properties);
        c.setAutoCommit(true);
        return c;
    }
}
