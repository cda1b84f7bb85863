package dev.sluice.it.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pool's endpoint keys: {@code pool-idle-timeout} closes idle backend connections,
 * {@code pool-wait-timeout} ends a client's wait for one with a clear error, and
 * {@code pool-max-connections} is never exceeded while clients wait.
 */
class PoolTimeoutsTest {
    private static final Duration IDLE = Duration.ofSeconds(1);
    private SluiceHarness sluice;

    @AfterEach
    void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    /** The application account's connections on the primary, for a failure message: what is left and doing what. */
    private static String appProcesses(SandboxCluster cluster) {
        return cluster.queryString(cluster.primary(), "SELECT COALESCE(GROUP_CONCAT(CONCAT('#', ID, ' ', COMMAND, ' ', "
                + "TIME, 's ', COALESCE(STATE, ''), ' ', COALESCE(LEFT(INFO, 60), '')) SEPARATOR '; '), '(none)') "
                + "FROM information_schema.PROCESSLIST WHERE USER = '" + SandboxCluster.APP_USER
                + "' AND ID <> CONNECTION_ID()");
    }

    private static int appConnections(SandboxCluster cluster) {
        return Integer.parseInt(cluster.queryString(cluster.primary(), "SELECT COUNT(*) FROM "
                + "information_schema.PROCESSLIST WHERE USER = '" + SandboxCluster.APP_USER + "' AND ID <> CONNECTION_ID()"));
    }

    @Test
    void idleBackendConnectionsCloseAfterThePoolIdleTimeout() throws Exception {
        SandboxCluster cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, """
                connection-pool: session
                pool-idle-timeout: %dms
                """.formatted(IDLE.toMillis()));
        List<Connection> clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
            clients.add(c);
            // A session takes a primary connection when a statement needs one (a login the pool's
            // node accepted a moment ago takes none); a locking read goes to the primary.
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 FOR UPDATE")) {
                rs.next();
            }
        }
        assertThat(appConnections(cluster)).isGreaterThanOrEqualTo(4);
        for (Connection c : clients) {
            c.close();
        }
        // Returned to the pool, they stay a while (reused by the next client), then close.
        try {
            await("idle pooled connections closed").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> appConnections(cluster) == 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("application connections left on the primary: " + appProcesses(cluster), e);
        }
    }

    @Test
    void aClientWaitingLongerThanThePoolWaitTimeoutGetsAnErrorAndTheBoundHolds() throws Exception {
        SandboxCluster cluster = SandboxCluster.get();
        int bound = 2;
        sluice = SluiceHarness.readWrite(cluster, """
                connection-pool: transaction
                pool-max-connections: %d
                pool-wait-timeout: 1s
                """.formatted(bound));
        List<Connection> holders = new ArrayList<>();
        SQLException refused = null;
        try {
            // Each holder keeps a transaction open, so its backend connection cannot serve anyone
            // else; the bound runs out on some I/O thread's share, and a client there waits in vain.
            for (int i = 0; i < 10 && refused == null; i++) {
                // The wait may end at the login (which takes a connection unless the pool's node
                // accepted the same login a moment ago) or at the BEGIN.
                Connection c = null;
                try {
                    c = DriverManager.getConnection(sluice.mariadbUrl("rw", "connectTimeout=30000"));
                    try (Statement s = c.createStatement()) {
                        s.execute("BEGIN");
                        try (ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                            rs.next();
                        }
                    }
                    holders.add(c);
                } catch (SQLException e) {
                    refused = e;
                    if (c != null) {
                        c.close();
                    }
                }
            }
            assertThat((Throwable) refused).as("a client that found no free connection").isNotNull();
            assertThat(refused.getMessage()).contains("became free within 1000 ms");
            assertThat(holders.stream().filter(c -> {
                try {
                    return c.isValid(2);
                } catch (SQLException e) {
                    return false;
                }
            }).count()).as("clients holding a transaction").isLessThanOrEqualTo(bound);
            assertThat(appConnections(cluster)).as("backend connections on the primary: %s", appProcesses(cluster))
                    .isLessThanOrEqualTo(bound);
        } finally {
            for (Connection c : holders) {
                c.close();
            }
        }
    }
}
