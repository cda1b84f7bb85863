package dev.sluice.it.transparency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sluice's backends always track session state (that is how it learns each commit's GTID); a
 * client that did not negotiate CLIENT_SESSION_TRACK must still get, byte for byte, the OK packets
 * the server sends it directly: no session state block, no SERVER_SESSION_STATE_CHANGED flag, the
 * info where the server puts it. The raw client here negotiates no session tracking.
 */
class OkPacketBytesTest {
    private static final String TABLE = "test.ok_bytes";
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
    /** Statements whose OK differs between a tracking and a non-tracking client. */
    private static final List<String> STATEMENTS = List.of(
            "INSERT INTO " + TABLE + " (v) VALUES (1), (2), (3)",
            "UPDATE " + TABLE + " SET v = v + 1 WHERE v <= 2",
            "SET time_zone = '+01:00'",
            "SET autocommit = 0",
            "INSERT INTO " + TABLE + " (v) VALUES (7)",
            "COMMIT",
            "SET autocommit = 1",
            "USE test",
            "DELETE FROM " + TABLE + " WHERE v > 100");

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, "consistency: session");
    }

    @AfterAll
    static void stop() {
        sluice.close();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
    }

    @Test
    void okPacketsAreTheServersOwnForAClientWithoutSessionTracking() throws Exception {
        List<String> direct = oks(cluster.primary().port());
        List<String> through = oks(sluice.port("rw"));
        assertThat(through).isEqualTo(direct);
        assertThat(through).as("every OK was read").hasSize(STATEMENTS.size());
    }

    @Test
    void theTokenStillComesFromTheBackendsTracking() throws Exception {
        try (RawMysqlClient c = login(sluice.port("rw"))) {
            c.query("CREATE TABLE IF NOT EXISTS " + TABLE + " (id INT AUTO_INCREMENT PRIMARY KEY, v INT)");
            c.query("INSERT INTO " + TABLE + " (v) VALUES (42)");
            String token = c.query("SELECT sluice_last_gtid()").get(0).get(0);
            assertThat(cluster.queryString(cluster.primary(), "SELECT @@gtid_binlog_pos")).contains(token);
        }
    }

    /** The OK payloads of {@link #STATEMENTS} on a fresh table, as hex, on the server or proxy at {@code port}. */
    private static List<String> oks(int port) throws Exception {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT AUTO_INCREMENT PRIMARY KEY, v INT)");
        try (RawMysqlClient c = login(port)) {
            List<String> out = new java.util.ArrayList<>();
            for (String sql : STATEMENTS) {
                c.sendQuery(sql);
                RawMysqlClient.RawPacket ok = c.readPacket();
                assertThat(ok.isOk()).as(sql + " answered " + ok).isTrue();
                out.add(sql + " -> " + HexFormat.of().formatHex(ok.payload()));
            }
            return out;
        }
    }

    private static RawMysqlClient login(int port) throws Exception {
        return RawMysqlClient.login(port, SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD, "test", READ_TIMEOUT);
    }
}
