package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC §3 session commands: USE, SET NAMES, SET sql_mode and SET time_zone reach every backend the
 * session uses, and a replica connected only afterwards replays them, so every node that answers
 * the session sees the same database, character set, SQL mode and time zone.
 */
class SessionStateTest {
    private static final String DB = "it_routing_state";
    private static final String STATE = "SELECT @@server_id, @@sql_mode, @@time_zone, DATABASE(), "
            + "@@character_set_client, @@character_set_results, @@collation_connection";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB, "CREATE DATABASE " + DB);
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.readWrite(cluster,
                "weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}\nbalancer: weighted");
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

    @Test
    void replicasOpenedAfterUseAndSetsSeeTheSameSessionState() throws Exception {
        try (RawMysqlClient client = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", Duration.ofSeconds(10))) {
            // One read before: the first replica in turn (ro1) is open already and must get the commands too.
            assertThat(nodeOf(client.query("SELECT @@server_id"))).isEqualTo("ro1");

            client.query("USE " + DB);
            client.query("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci");
            client.query("SET sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES,NO_ZERO_DATE'");
            client.query("SET time_zone = '+03:00'");

            // No backend of this session is on ro2 or ro3 yet (the USE above would have moved it to DB).
            assertThat(sessionsInDb(cluster.node("ro2"))).as("ro2 backends in " + DB + " before the reads").isZero();
            assertThat(sessionsInDb(cluster.node("ro3"))).as("ro3 backends in " + DB + " before the reads").isZero();

            Map<String, List<String>> seen = new HashMap<>();
            List<String> primary = client.query("/*FORCE_MASTER*/ " + STATE).get(0);
            seen.put(nodeOf(List.of(primary)), primary.subList(1, primary.size()));
            for (int i = 0; i < 3; i++) {
                List<String> row = client.query(STATE).get(0);
                seen.put(nodeOf(List.of(row)), row.subList(1, row.size()));
            }
            assertThat(seen).as("nodes that answered").containsOnlyKeys("primary", "ro1", "ro2", "ro3");
            for (Map.Entry<String, List<String>> e : seen.entrySet()) {
                List<String> state = e.getValue();
                assertThat(new TreeSet<>(Arrays.asList(state.get(0).split(","))))
                        .as("@@sql_mode on " + e.getKey())
                        .containsExactlyInAnyOrder("ANSI_QUOTES", "STRICT_ALL_TABLES", "NO_ZERO_DATE");
                assertThat(state.subList(1, state.size())).as("time zone, database, charset on " + e.getKey())
                        .containsExactly("+03:00", DB, "utf8mb4", "utf8mb4", "utf8mb4_unicode_ci");
            }
            assertThat(sessionsInDb(cluster.node("ro2"))).as("ro2 opened for the reads, in " + DB).isEqualTo(1);
            assertThat(sessionsInDb(cluster.node("ro3"))).as("ro3 opened for the reads, in " + DB).isEqualTo(1);
        }
    }

    @Test
    void aDriverSessionsCatalogAndSettingsFollowItToEveryReplica() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
                Statement s = c.createStatement()) {
            c.setCatalog(DB); // COM_INIT_DB
            s.execute("SET time_zone = '-02:30'");
            s.execute("SET sql_mode = 'PIPES_AS_CONCAT'");
            List<String> nodes = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                try (ResultSet rs = s.executeQuery("SELECT @@server_id, @@time_zone, DATABASE(), 'a' || 'b'")) {
                    rs.next();
                    String node = names.name(rs.getLong(1));
                    nodes.add(node);
                    assertThat(rs.getString(2)).as("@@time_zone on " + node).isEqualTo("-02:30");
                    assertThat(rs.getString(3)).as("DATABASE() on " + node).isEqualTo(DB);
                    assertThat(rs.getString(4)).as("|| under PIPES_AS_CONCAT on " + node).isEqualTo("ab");
                }
            }
            assertThat(nodes).containsAll(List.of("ro1", "ro2", "ro3")).doesNotContain("primary");
        }
    }

    private static String nodeOf(List<List<String>> rows) {
        return names.name(Long.parseLong(rows.get(0).get(0)));
    }

    /** Connections of the test account on the node whose current database is {@link #DB}. */
    private static long sessionsInDb(SandboxNode node) {
        return Long.parseLong(cluster.queryString(node, "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                + "WHERE USER = '" + SandboxCluster.APP_USER + "' AND DB = '" + DB + "' AND ID <> CONNECTION_ID()"));
    }
}
