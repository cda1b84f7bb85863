package dev.sluice.it.transparency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A `session` endpoint keeps its promise whatever the driver negotiated. MySQL Connector/J with
 * its defaults does not negotiate CLIENT_SESSION_TRACK (nor do PHP mysqli, PyMySQL, the Go driver,
 * node mysql2); MariaDB Connector/J does. Through the same endpoint, with every replica applying
 * writes seconds late, each must read its own write, and get the consistency token in the text
 * and in the binary protocol.
 */
class ClientsWithoutSessionTrackingTest {
    private static final int DELAY_SECONDS = 2;
    private static final String TABLE = "test.tracking_clients";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    /** The drivers, as applications use them. */
    enum Driver {
        MYSQL_CONNECTOR_J_DEFAULTS {
            @Override
            String url(SluiceHarness sluice) {
                return sluice.mysqlUrl("session", "");
            }
        },
        MYSQL_CONNECTOR_J_SERVER_PREPARES {
            @Override
            String url(SluiceHarness sluice) {
                return sluice.mysqlUrl("session", "useServerPrepStmts=true");
            }
        },
        MARIADB_CONNECTOR_J {
            @Override
            String url(SluiceHarness sluice) {
                return sluice.mariadbUrl("session", "");
            }
        },
        MARIADB_CONNECTOR_J_SERVER_PREPARES {
            @Override
            String url(SluiceHarness sluice) {
                return sluice.mariadbUrl("session", "useServerPrepStmts=true");
            }
        };

        abstract String url(SluiceHarness sluice);
    }

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "CREATE TABLE IF NOT EXISTS " + TABLE + " (id INT PRIMARY KEY, v BIGINT NOT NULL)",
                "REPLACE INTO " + TABLE + " VALUES (1, 0)");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.start(cluster, """
                endpoints:
                  - name: session
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}
                    consistency: session
                    consistency-timeout: 50ms
                """);
    }

    @AfterAll
    static void stop() {
        sluice.close();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
    }

    @AfterEach
    void replicationBack() {
        cluster.restoreHealthy();
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void readsItsOwnWriteFromReplicasThatApplyLate(Driver driver) throws Exception {
        for (SandboxNode replica : cluster.replicas()) {
            cluster.delayReplication(replica, DELAY_SECONDS);
        }
        try (Connection c = DriverManager.getConnection(driver.url(sluice))) {
            for (int i = 0; i < 5; i++) {
                long written = write(c);
                assertThat(read(c)).as("read after write " + i).isEqualTo(written);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void readsGoToReplicasOnceTheyHaveTheWrite(Driver driver) throws Exception {
        long primaryId = cluster.primary().serverId();
        Set<Long> servers = new HashSet<>();
        try (Connection c = DriverManager.getConnection(driver.url(sluice))) {
            for (int i = 0; i < 30; i++) {
                long written = write(c);
                try (PreparedStatement s = c.prepareStatement("SELECT v, @@server_id FROM " + TABLE + " WHERE id = 1");
                        ResultSet rs = s.executeQuery()) {
                    rs.next();
                    assertThat(rs.getLong(1)).isEqualTo(written);
                    servers.add(rs.getLong(2));
                }
            }
        }
        assertThat(servers).as("reads waited on replicas rather than all going to the primary")
                .anyMatch(id -> id != primaryId);
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void theTokenIsTheGtidOfTheLastCommitInBothProtocols(Driver driver) throws Exception {
        try (Connection c = DriverManager.getConnection(driver.url(sluice))) {
            assertThat(token(c)).as("before any commit").isNull();
            write(c);
            String primaryLast = cluster.queryString(cluster.primary(), "SELECT @@gtid_binlog_pos");
            String token = token(c);
            assertThat(token).matches("\\d+-\\d+-\\d+");
            assertThat(primaryLast).contains(token);
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void theTokensColumnIsNamedByItsAlias(Driver driver) throws Exception {
        try (Connection c = DriverManager.getConnection(driver.url(sluice))) {
            write(c);
            try (PreparedStatement s = c.prepareStatement("SELECT sluice_last_gtid() AS token");
                    ResultSet rs = s.executeQuery()) {
                assertThat(rs.getMetaData().getColumnLabel(1)).isEqualTo("token");
                rs.next();
                assertThat(rs.getString("token")).matches("\\d+-\\d+-\\d+");
            }
        }
    }

    private static String token(Connection c) throws SQLException {
        // Through a PreparedStatement, so that the server-prepares variants use the binary protocol.
        try (PreparedStatement s = c.prepareStatement("SELECT sluice_last_gtid()"); ResultSet rs = s.executeQuery()) {
            assertThat(rs.getMetaData().getColumnLabel(1)).isEqualTo("sluice_last_gtid()");
            rs.next();
            return rs.getString(1);
        }
    }

    private static long write(Connection c) throws SQLException {
        long value = System.nanoTime();
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + TABLE + " SET v = " + value + " WHERE id = 1");
        }
        return value;
    }

    private static long read(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT v FROM " + TABLE + " WHERE id = 1");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
