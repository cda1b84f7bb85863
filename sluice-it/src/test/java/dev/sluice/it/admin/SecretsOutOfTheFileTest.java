package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * BEHAVIOUR §12, secrets out of the file: Sluice runs with its monitor password from an
 * environment variable (set for this JVM by the module's surefire configuration) and its admin
 * token from a file; the monitor logs in with it, the token guards changes, and neither secret
 * appears in DescribeDBProxy, in the configuration written back, or in anything Sluice logged.
 */
class SecretsOutOfTheFileTest {
    /** Set by sluice-it's pom for the test JVM; the value is the password of {@link #WATCHER}. */
    private static final String VARIABLE = "SLUICE_IT_WATCHER_PASSWORD";
    private static final String WATCHER = "secret_watcher";
    private static final String TOKEN = "tok-from-a-file-5b7e1d";
    private static final Duration BOUND = Duration.ofSeconds(30);

    @TempDir
    static Path dir;

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static AdminClient admin;
    private static Path file;
    private static final ListAppender<ILoggingEvent> LOG = new ListAppender<>();

    private static String password() {
        String p = System.getenv(VARIABLE);
        assertThat(p).as("the environment variable " + VARIABLE + " (sluice-it's surefire configuration)")
                .isNotBlank();
        return p;
    }

    @BeforeAll
    static void start() throws Exception {
        cluster = SandboxCluster.get();
        // A monitor account of the test's own, whose password is only in the environment.
        cluster.rootQuery(cluster.primary(), "CREATE USER '" + WATCHER + "'@'127.0.0.1' IDENTIFIED BY '"
                + password() + "'");
        cluster.rootQuery(cluster.primary(), "GRANT REPLICATION CLIENT, REPLICA MONITOR, PROCESS, SUPER ON *.* TO '"
                + WATCHER + "'@'127.0.0.1'");
        cluster.rootQuery(cluster.primary(), "GRANT SELECT ON mysql.* TO '" + WATCHER + "'@'127.0.0.1'");
        cluster.waitForReplicasCaughtUp(BOUND);

        Files.writeString(dir.resolve("admin-token"), TOKEN + "\n");
        file = dir.resolve("sluice.yaml");
        String nodes = SluiceHarness.nodesYaml(cluster).replace(
                "monitor: {user: " + SandboxCluster.MONITOR_USER + ", password: " + SandboxCluster.MONITOR_PASSWORD,
                "monitor: {user: " + WATCHER + ", password: \"${" + VARIABLE + "}\"")
                .replace("admin: {listen: 127.0.0.1:0", "admin: {listen: 127.0.0.1:0, token-file: admin-token");
        assertThat(nodes).contains("${" + VARIABLE + "}", "token-file: admin-token");
        Files.writeString(file, nodes + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}
                """);
        LOG.start();
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).addAppender(LOG);
        sluice = SluiceHarness.fromFile(cluster, file);
        admin = new AdminClient(sluice.adminAddress(), TOKEN);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            if (sluice != null) {
                sluice.close();
                assertThat(NettyLeaks.collect()).isEmpty();
            }
        } finally {
            ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).detachAppender(LOG);
            cluster.rootQuery(cluster.primary(), "DROP USER IF EXISTS '" + WATCHER + "'@'127.0.0.1'");
        }
    }

    @Test
    void theSecretsWorkAndAreNeverShownNorWritten() throws Exception {
        await("every node checked with the password from the environment").atMost(BOUND).until(() -> {
            for (JsonNode n : admin.describe().get("nodes")) {
                if (!n.get("state").asText().equals("up")) {
                    return false;
                }
            }
            return true;
        });
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@server_id")) {
            rs.next();
            assertThat(rs.getLong(1)).as("a read answered by a replica").isNotEqualTo(cluster.primary().serverId());
        }

        assertThat(admin.send("PATCH", "/v1/endpoints/rw", "{\"max-connections\": 500}", "").status())
                .as("a change without the token from the file").isEqualTo(401);
        admin.ok(admin.patch("/v1/endpoints/rw?persist=true", "{\"max-connections\": 500}"));

        String persisted = Files.readString(file);
        assertThat(persisted).as("the configuration written back keeps the references")
                .contains("${" + VARIABLE + "}", "token-file: admin-token", "max-connections: 500")
                .doesNotContain(password(), TOKEN);
        assertThat(admin.get("/v1/proxy").body()).doesNotContain(password(), TOKEN);
        String logged = LOG.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.joining("\n"));
        assertThat(logged).as("Sluice logged something while it ran").isNotEmpty();
        assertThat(logged).doesNotContain(password(), TOKEN);
    }
}
