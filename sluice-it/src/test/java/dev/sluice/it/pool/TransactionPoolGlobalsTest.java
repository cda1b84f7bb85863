package dev.sluice.it.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §7: a server connection takes the session values of global variables at its login and
 * keeps them after a later {@code SET GLOBAL}, where a client's own new connection would have the
 * new ones. Once a {@code SET GLOBAL} through Sluice succeeded, a pooled connection logged in
 * before it is reset before it serves a client, so every client sees the globals as they are.
 */
class TransactionPoolGlobalsTest {
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static long original;

    @BeforeAll
    static void start() throws SQLException {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, """
                connection-pool: transaction
                pool-max-connections: 16
                """);
        try (Connection c = client()) {
            original = number(c, "/*FORCE_MASTER*/ SELECT @@global.max_allowed_packet");
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        cluster.exec(cluster.primary(), "SET GLOBAL max_allowed_packet = " + original);
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    private static Connection client() throws SQLException {
        return DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
    }

    private static long number(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getLong(1);
        }
    }

    @Test
    void aSetGlobalThroughSluiceReachesTheSessionValuesOfPooledConnections() throws Exception {
        long before;
        try (Connection x = client()) {
            // Its connection goes back to the pool as it is, with the global's value of now.
            before = number(x, "/*FORCE_MASTER*/ SELECT @@session.max_allowed_packet");
        }
        // Another value within the server's bounds (1 KiB to 1 GiB, a multiple of 1 KiB).
        long changed = before > (1L << 29) ? before / 2 : before * 2;
        try (Connection y = client(); Statement s = y.createStatement()) {
            s.execute("SET GLOBAL max_allowed_packet = " + changed);
        }
        for (int i = 0; i < 3; i++) {
            try (Connection z = client()) {
                assertThat(number(z, "/*FORCE_MASTER*/ SELECT @@session.max_allowed_packet"))
                        .as("a new connection's value, as the server gives it").isEqualTo(changed);
            }
        }
    }
}
