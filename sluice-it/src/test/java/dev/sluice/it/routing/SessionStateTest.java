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
 * BEHAVIOUR §3 session commands: USE, SET NAMES, SET sql_mode and SET time_zone reach every backend the
 * session uses, and a replica connected only afterwards replays them, so every node that answers
 * the session sees the same database, character set, SQL mode and time zone.
 */
class SessionStateTest {
    private static final String DB = "it_routing_state";
    /** Only {@link #replicasOpenedAfterUseAndSetsSeeTheSameSessionState} goes there: it counts sessions in it. */
    private static final String REPLAY_DB = "it_routing_replay";
    private static final String STATE = "SELECT @@server_id, @@sql_mode, @@time_zone, DATABASE(), "
            + "@@character_set_client, @@character_set_results, @@collation_connection";
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB, "CREATE DATABASE " + DB,
                "DROP DATABASE IF EXISTS " + REPLAY_DB, "CREATE DATABASE " + REPLAY_DB);
        cluster.waitForReplicasCaughtUp(Duration.ofSeconds(30));
        sluice = SluiceHarness.readWrite(cluster,
                "weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}\nbalancer: weighted");
        AdminView.awaitReadable(sluice, "rw", "ro1", "ro2", "ro3");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DB, "DROP DATABASE IF EXISTS " + REPLAY_DB);
        } finally {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void replicasOpenedAfterUseAndSetsSeeTheSameSessionState() throws Exception {
        try (RawMysqlClient client = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", Duration.ofSeconds(10))) {
            // One read before: that replica is open already and must get the commands too.
            String openBefore = nodeOf(client.query("SELECT @@server_id"));
            assertThat(openBefore).startsWith("ro");
            List<String> openedAfter = new ArrayList<>(List.of("ro1", "ro2", "ro3"));
            openedAfter.remove(openBefore);

            client.query("USE " + REPLAY_DB);
            client.query("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci");
            client.query("SET sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES,NO_ZERO_DATE'");
            client.query("SET time_zone = '+03:00'");

            // No backend of this session is on the other replicas yet (the USE would have moved it to REPLAY_DB).
            for (String replica : openedAfter) {
                assertThat(sessionsInReplayDb(cluster.node(replica))).as(replica + " before the reads").isZero();
            }

            Map<String, List<String>> seen = new HashMap<>();
            List<String> primary = client.query("/*FORCE_MASTER*/ " + STATE).get(0);
            seen.put(nodeOf(List.of(primary)), primary.subList(1, primary.size()));
            for (int i = 0; i < 3; i++) { // equal weights, weighted balancer: each replica once
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
                        .containsExactly("+03:00", REPLAY_DB, "utf8mb4", "utf8mb4", "utf8mb4_unicode_ci");
            }
            for (String replica : openedAfter) {
                assertThat(sessionsInReplayDb(cluster.node(replica))).as(replica + " opened for the reads").isEqualTo(1);
            }
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

    @Test
    void aReplicaThatFailsASessionCommandLeavesTheSessionButTheSessionGoesOn() throws Exception {
        // A database that only the primary has (not written to the binlog): USE fails on every replica.
        String onlyOnPrimary = DB + "_primary_only";
        cluster.exec(cluster.primary(), "SET SESSION sql_log_bin = 0", "DROP DATABASE IF EXISTS " + onlyOnPrimary,
                "CREATE DATABASE " + onlyOnPrimary);
        try (RawMysqlClient client = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", Duration.ofSeconds(10))) {
            assertThat(nodeOf(client.query("SELECT @@server_id"))).as("a replica open before the USE").startsWith("ro");
            client.query("USE " + onlyOnPrimary); // the client gets the primary's answer: OK
            for (int i = 0; i < 6; i++) {
                List<String> row = client.query("SELECT @@server_id, DATABASE()").get(0);
                // Whoever answers must be in the session's database: a replica that could not follow is gone.
                assertThat(row.get(1)).as("DATABASE() on " + nodeOf(List.of(row))).isEqualTo(onlyOnPrimary);
            }
            client.query("USE " + DB);
            List<String> answered = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                List<String> row = client.query("SELECT @@server_id, DATABASE()").get(0);
                assertThat(row.get(1)).isEqualTo(DB);
                answered.add(nodeOf(List.of(row)));
            }
            assertThat(answered).as("the session still works after the failed replicas left").hasSize(3);
        } finally {
            cluster.exec(cluster.primary(), "SET SESSION sql_log_bin = 0", "DROP DATABASE IF EXISTS " + onlyOnPrimary);
        }
    }

    private static String nodeOf(List<List<String>> rows) {
        return names.name(Long.parseLong(rows.get(0).get(0)));
    }

    /** Connections of the test account on the node whose current database is {@link #REPLAY_DB}. */
    private static long sessionsInReplayDb(SandboxNode node) {
        return Long.parseLong(cluster.queryString(node, "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                + "WHERE USER = '" + SandboxCluster.APP_USER + "' AND DB = '" + REPLAY_DB + "' AND ID <> CONNECTION_ID()"));
    }
}
