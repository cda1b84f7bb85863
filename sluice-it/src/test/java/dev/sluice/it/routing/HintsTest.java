package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * BEHAVIOUR §3 hints as real drivers send them (both keep comments in the statement text): on an
 * endpoint whose primary has read weight 0, {@code /*FORCE_MASTER*}{@code /} still sends a read
 * there, {@code /*FORCE_SLAVE*}{@code /} sends a stored-function call (a primary statement by
 * itself) to a replica, and a hint on a session command is ignored: the setting reaches every
 * backend.
 */
class HintsTest {
    private static final String DB = "it_routing_hints";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB, "CREATE DATABASE " + DB,
                "CREATE FUNCTION " + DB + ".f_one() RETURNS INT DETERMINISTIC RETURN 1");
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.readWrite(cluster,
                "weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}\nbalancer: weighted");
        AdminView.awaitReadable(sluice, "rw", "ro1", "ro2", "ro3");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB);
        } finally {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    private static Connection connect(String driver) throws SQLException {
        String url = driver.equals("mysql") ? sluice.mysqlUrl("rw", "") : sluice.mariadbUrl("rw", "");
        Connection c = DriverManager.getConnection(url);
        assertThat(c.getMetaData().getDriverName()).as("the driver under test")
                .containsIgnoringCase(driver.equals("mysql") ? "MySQL Connector" : "MariaDB");
        return c;
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void forceMasterSendsAReadToThePrimaryDespiteItsWeightZero(String driver) throws SQLException {
        try (Connection c = connect(driver); Statement s = c.createStatement()) {
            for (int i = 0; i < 4; i++) {
                assertThat(names.where(s, "/*FORCE_MASTER*/ SELECT @@server_id")).isEqualTo("primary");
                assertThat(names.where(s, "SELECT @@server_id")).as("the same read without the hint").startsWith("ro");
            }
            try (PreparedStatement p = c.prepareStatement("/*FORCE_MASTER*/ SELECT @@server_id, ?")) {
                p.setInt(1, 1);
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    assertThat(names.name(rs.getLong(1))).as("hint in a prepared statement's text").isEqualTo("primary");
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void forceSlaveSendsAStoredFunctionCallToAReplica(String driver) throws SQLException {
        try (Connection c = connect(driver); Statement s = c.createStatement()) {
            for (int i = 0; i < 4; i++) {
                assertThat(names.where(s, "SELECT @@server_id, " + DB + ".f_one()")).as("without the hint")
                        .isEqualTo("primary");
                assertThat(names.where(s, "/*FORCE_SLAVE*/ SELECT @@server_id, " + DB + ".f_one()"))
                        .as("with FORCE_SLAVE").startsWith("ro");
            }
        }
    }

    @ParameterizedTest(name = "{0} Connector/J")
    @ValueSource(strings = {"mysql", "mariadb"})
    void aHintOnASessionCommandIsIgnoredAndTheSettingReachesEveryBackend(String driver) throws SQLException {
        try (Connection c = connect(driver); Statement s = c.createStatement()) {
            s.execute("/*FORCE_SLAVE*/ SET time_zone = '+05:00'");
            s.execute("/*FORCE_MASTER*/ SET SESSION max_join_size = 123456");
            assertSessionAt(s, "/*FORCE_MASTER*/ ", "primary");
            for (int i = 0; i < 3; i++) {
                assertSessionAt(s, "", "ro");
            }
        }
    }

    private static void assertSessionAt(Statement s, String hint, String node) throws SQLException {
        try (ResultSet rs = s.executeQuery(hint + "SELECT @@server_id, @@time_zone, @@max_join_size")) {
            rs.next();
            String ranOn = names.name(rs.getLong(1));
            assertThat(ranOn).startsWith(node);
            assertThat(rs.getString(2)).as("@@time_zone on " + ranOn).isEqualTo("+05:00");
            assertThat(rs.getLong(3)).as("@@max_join_size on " + ranOn).isEqualTo(123456);
        }
    }
}
