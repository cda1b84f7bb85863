package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BEHAVIOUR §10: an autocommit write whose primary connection is lost under it gets Sluice's error
 * saying it may or may not have run. The client here is the {@code mariadb} command-line client,
 * built on MariaDB Connector/C like sysbench: that library reads an ERR carrying one of its own
 * error numbers (2013 "Lost connection", say) as a malformed packet and reports 2027 without the
 * message, so this is where the number Sluice chose shows.
 *
 * <p>Made without racing the monitor: the primary is reached through a {@link NodeDoor} that cuts
 * the session's connection while its UPDATE sleeps on the primary, while the monitor's own
 * connection, opened before, still finds the primary alive.
 */
class LostPrimaryErrorTest {
    private static final Duration BOUND = Duration.ofSeconds(15);
    private static final long CLI_TIMEOUT_SECONDS = 30;
    private static final String TABLE = "test.it_lost_primary";

    private final SandboxCluster cluster = SandboxCluster.get();

    @TempDir
    Path dir;

    @AfterEach
    void restore() throws Exception {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS " + TABLE);
        cluster.restoreHealthy();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void theMariadbClientReadsSluicesErrorForAWriteWhosePrimaryConnectionWasCut() throws Exception {
        SandboxNode primary = cluster.primary();
        cluster.exec(primary, "CREATE OR REPLACE TABLE " + TABLE + " (n INT)", "INSERT INTO " + TABLE + " VALUES (0)");
        try (NodeDoor door = new NodeDoor(primary.port());
                SluiceHarness sluice = SluiceHarness.fromYaml(cluster, door.readWriteConfig(cluster))) {
            await("Sluice takes writes").atMost(BOUND).ignoreExceptions().until(() -> {
                try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE " + TABLE + " SET n = n WHERE 1 = 0");
                    return true;
                }
            });
            door.keepOpenOnes();

            Path out = dir.resolve("mariadb.out");
            Process cli = new ProcessBuilder(List.of("mariadb", "-h127.0.0.1", "-P" + sluice.port("rw"),
                    "-u" + SandboxCluster.APP_USER, "-p" + SandboxCluster.APP_PASSWORD, "--connect-timeout=5",
                    "-e", "UPDATE " + TABLE + " SET n = n + 1 WHERE SLEEP(3) = 0", "test"))
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            await("the UPDATE sleeps on the primary").atMost(BOUND).pollInterval(Duration.ofMillis(50))
                    .until(() -> !"0".equals(cluster.queryString(primary, "SELECT COUNT(*) FROM "
                            + "information_schema.PROCESSLIST WHERE INFO LIKE 'UPDATE " + TABLE + "%'")));
            door.shut();

            boolean finished = cli.waitFor(CLI_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!finished) {
                cli.destroyForcibly();
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(finished).as("the mariadb client finished; its output so far:\n" + text).isTrue();
            assertThat(text).as("what the mariadb client printed")
                    .contains("ERROR 1105 (HY000) at line 1: Lost connection to the primary 'primary' during query")
                    .contains("may or may not have run")
                    .doesNotContain("2027");
        }
    }
}
