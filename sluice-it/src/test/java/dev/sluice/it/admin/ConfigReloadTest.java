package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.admin.ConfigReload;
import dev.sluice.server.config.SluiceConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BEHAVIOUR §13, SIGHUP: the configuration file read again is run as an admin change is run. A node
 * and an endpoint the file adds join and serve, and leave again when the file drops them; a file
 * whose new endpoint cannot listen changes nothing, not even the node it adds. (DistributionTest
 * sends the signal itself; here the reload is called as the signal handler calls it.)
 */
class ConfigReloadTest {
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final String RW = """
            endpoints:
              - name: rw
                listen: 127.0.0.1:0
                mode: read-write
                weights: {primary: 0, ro1: 100, ro2: 100}
            """;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;

    @TempDir
    static Path dir;
    private static Path file;

    @BeforeAll
    static void start() throws Exception {
        cluster = SandboxCluster.get();
        file = dir.resolve("sluice.yaml");
        Files.writeString(file, startingFile());
        sluice = SluiceHarness.fromFile(cluster, file);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
    }

    @Test
    void aNodeAndAnEndpointTheFileAddsServeAndLeaveWhenItDropsThem() throws Exception {
        Files.writeString(file, withReports("127.0.0.1:0"));
        assertThat(sluice.server().reloadConfiguration()).isEqualTo(new ConfigReload.Outcome.Applied(List.of(
                "node 'ro3' added at " + cluster.node("ro3").address(), "endpoint 'reports' added on 127.0.0.1:0"),
                List.of()));
        long ro3 = cluster.serverIdOf(cluster.node("ro3"));
        // The added node takes sessions once the monitor has checked it (state "unknown" before); until
        // then the endpoint, whose only node it is, refuses logins.
        await("reads on the added endpoint reach the added node").atMost(SETTLE)
                .ignoreExceptionsInstanceOf(SQLException.class).until(() -> serverIdThrough("reports") == ro3);

        Files.writeString(file, startingFile());
        assertThat(sluice.server().reloadConfiguration()).isEqualTo(new ConfigReload.Outcome.Applied(List.of(
                "endpoint 'reports' removed", "node 'ro3' removed"), List.of()));
        assertThat(sluice.server().endpointAddress("reports")).isEmpty();
        assertThat(sluice.server().runtime().topology().node("ro3")).isEmpty();
    }

    @Test
    void aFileWhoseNewEndpointCannotListenChangesNothing() throws Exception {
        SluiceConfig before = sluice.server().runtime().config();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Files.writeString(file, withReports("127.0.0.1:" + taken.getLocalPort()));
            assertThat(sluice.server().reloadConfiguration()).isInstanceOfSatisfying(
                    ConfigReload.Outcome.Refused.class,
                    r -> assertThat(r.reason()).contains("endpoint 'reports' cannot listen on"));
        }
        assertThat(sluice.server().runtime().config()).isEqualTo(before);
        assertThat(sluice.server().runtime().topology().node("ro3")).isEmpty();
        assertThat(sluice.server().endpointAddress("reports")).isEmpty();
    }

    /** The next test starts from the starting file whatever this one left running. */
    @AfterEach
    void backToTheStartingFile() throws Exception {
        Files.writeString(file, startingFile());
        sluice.server().reloadConfiguration();
    }

    private static String startingFile() {
        return SluiceHarness.nodesYaml(cluster, "", List.of(cluster.primary(), cluster.node("ro1"),
                cluster.node("ro2"))) + RW;
    }

    private static String withReports(String listen) {
        return SluiceHarness.nodesYaml(cluster, "", List.of(cluster.primary(), cluster.node("ro1"),
                cluster.node("ro2"), cluster.node("ro3"))) + RW + """
                  - name: reports
                    listen: %s
                    mode: read-only
                    nodes: [ro3]
                """.formatted(listen);
    }

    private static long serverIdThrough(String endpoint) throws Exception {
        try (Connection c = sluice.connect(endpoint); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT @@server_id")) {
            r.next();
            return r.getLong(1);
        }
    }
}
