package dev.sluice.it.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution end to end (BEHAVIOUR §13): {@code ./sluice dist} builds the tarball, which is
 * unpacked into an empty directory and run as {@code bin/sluice run --config conf/sluice.yaml}
 * with nothing but a Java runtime on the PATH, against the sandbox. It serves queries, logs one
 * JSON object per line, applies a weight changed in its file on SIGHUP (and refuses a broken file
 * without changing anything), and on SIGTERM stops accepting, lets a transaction in progress
 * finish, closes its sessions at their transaction boundary and exits 0 — or cuts a transaction
 * still open when the shutdown timeout runs out, and still exits 0.
 */
class DistributionTest {
    /** Long enough that the graceful path never reaches it on a loaded machine. */
    private static final Duration GENEROUS_SHUTDOWN = Duration.ofSeconds(90);
    private static final Duration SHORT_SHUTDOWN = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Map<String, String> ENV = Map.of("SLUICE_JAVA_OPTS",
            "-Xmx256m -Dio.netty.leakDetection.level=paranoid");

    @TempDir
    static Path dir;
    private static SandboxCluster cluster;
    private static Path tarball;
    private static Path jreOnly;

    @BeforeAll
    static void buildTheTarball() throws Exception {
        cluster = SandboxCluster.get();
        tarball = Installation.buildTarball(Files.createDirectories(dir.resolve("dist")));
        jreOnly = Installation.jreOnlyPath(dir.resolve("jre-only-path"));
    }

    @Test
    void anUnpackedTarballServesReloadsOnSighupAndDrainsOnSigterm() throws Exception {
        SandboxNode first = cluster.replicas().get(0);
        SandboxNode second = cluster.replicas().get(1);
        Path home = Installation.unpack(tarball, dir.resolve("install-a"));
        assertThat(Installation.run(Installation.launcher(home, jreOnly, Map.of(), "--version"),
                dir.resolve("version.log"))).startsWith("Sluice ");
        Path config = home.resolve("conf/sluice.yaml");
        Files.writeString(config, configuration(first.name(), GENEROUS_SHUTDOWN));

        try (InstalledSluice sluice = InstalledSluice.start(Installation.launcher(home, jreOnly, ENV, "run",
                "--config", "conf/sluice.yaml"), dir.resolve("a.log"))) {
            awaitReadsOn(sluice, first);
            assertThat(sluice.logged("SIGHUP is ignored by this process")).as("Sluice says it cannot act on SIGHUP: "
                    + "this test runs under nohup or another launcher that ignores it; run the suite without")
                    .isFalse();

            Files.writeString(config, "endpoints: [this is not a configuration\n");
            sluice.signal("HUP");
            await("the broken file refused").atMost(WAIT).until(() -> sluice.logged("configuration file refused, "
                    + "nothing changed"));
            assertThat(sluice.admin("/v1/endpoints/rw").path("weights").path(first.name()).asInt()).isEqualTo(100);
            assertThat(serverId(sluice)).isEqualTo(cluster.serverIdOf(first));

            Files.writeString(config, configuration(second.name(), GENEROUS_SHUTDOWN));
            sluice.signal("HUP");
            await("the changed weight applied").atMost(WAIT).until(() -> sluice.logged("configuration reloaded"));
            var weights = sluice.admin("/v1/endpoints/rw").path("weights");
            assertThat(weights.path(second.name()).asInt()).as("weights now: " + weights).isEqualTo(100);
            assertThat(weights.path(first.name()).asInt()).as("weights now: " + weights).isZero();
            awaitReadsOn(sluice, second);

            try (Connection inTransaction = connect(sluice); Connection idle = connect(sluice);
                    Statement tx = inTransaction.createStatement()) {
                tx.execute("START TRANSACTION");
                long txServer = scalar(tx, "SELECT @@server_id");
                assertThat(txServer).as("a transaction runs on the primary").isEqualTo(
                        cluster.serverIdOf(cluster.primary()));
                assertThat(scalar(idle.createStatement(), "SELECT 1")).isEqualTo(1);

                long signalled = System.nanoTime();
                sluice.process().destroy();
                await("no new client accepted").atMost(WAIT).until(() -> refused(sluice.port()));
                await("the idle session closed at once").atMost(WAIT).until(() -> !idle.isValid(1));
                assertThat(scalar(tx, "SELECT @@server_id")).as("the transaction goes on after SIGTERM")
                        .isEqualTo(txServer);
                tx.execute("COMMIT");
                await("the session closed once its transaction ended").atMost(WAIT)
                        .until(() -> !inTransaction.isValid(1));
                assertThat(sluice.process().waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                        .as("Sluice stopped; output:\n" + sluice.output()).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - signalled)).isLessThan(GENEROUS_SHUTDOWN);
            }
            assertThat(sluice.process().exitValue()).as("exit status; output:\n" + sluice.output()).isZero();
            assertThat(sluice.messages()).anyMatch(m -> m.startsWith("stopped: 2 session(s) at stop: 2 closed at a "
                    + "transaction boundary, 0 ended by themselves, 0 cut"));
            assertThat(sluice.output()).doesNotContain("LEAK:");
        }
    }

    @Test
    void aTransactionStillOpenWhenTheShutdownTimeoutRunsOutIsCutAndSluiceStillExitsZero() throws Exception {
        SandboxNode first = cluster.replicas().get(0);
        Path home = Installation.unpack(tarball, dir.resolve("install-b"));
        Files.writeString(home.resolve("conf/sluice.yaml"), configuration(first.name(), SHORT_SHUTDOWN));
        try (InstalledSluice sluice = InstalledSluice.start(Installation.launcher(home, jreOnly, ENV, "run",
                "--config", "conf/sluice.yaml"), dir.resolve("b.log"));
                Connection inTransaction = connect(sluice); Statement tx = inTransaction.createStatement()) {
            tx.execute("START TRANSACTION");
            scalar(tx, "SELECT @@server_id");
            sluice.process().destroy();
            assertThat(sluice.process().waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .as("Sluice stopped; output:\n" + sluice.output()).isTrue();
            assertThat(sluice.process().exitValue()).as("exit status; output:\n" + sluice.output()).isZero();
            assertThat(sluice.messages()).anyMatch(m -> m.startsWith("stopped: 1 session(s) at stop: 0 closed at a "
                    + "transaction boundary, 0 ended by themselves, 1 cut after shutdown-timeout 2000 ms"));
            assertThatThrownBy(() -> scalar(tx, "SELECT 1")).isInstanceOf(SQLException.class);
        }
    }

    /** The sandbox's nodes, one read-write endpoint reading from {@code reader} only, JSON logs. */
    private static String configuration(String reader, Duration shutdownTimeout) {
        return SluiceHarness.nodesYaml(cluster) + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, %s: 100}
                shutdown-timeout: %dms
                log-format: json
                """.formatted(reader, shutdownTimeout.toMillis());
    }

    /** New connections read from {@code node} (the monitor may take a moment to find it readable). */
    private static void awaitReadsOn(InstalledSluice sluice, SandboxNode node) {
        long expected = cluster.serverIdOf(node);
        await("reads on " + node.name()).atMost(WAIT).until(() -> serverId(sluice) == expected);
    }

    private static long serverId(InstalledSluice sluice) throws SQLException {
        try (Connection c = connect(sluice); Statement s = c.createStatement()) {
            return scalar(s, "SELECT @@server_id");
        }
    }

    private static Connection connect(InstalledSluice sluice) throws SQLException {
        return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + sluice.port() + "/test?user="
                + SandboxCluster.APP_USER + "&password=" + SandboxCluster.APP_PASSWORD
                + "&connectTimeout=5000&socketTimeout=20000");
    }

    private static long scalar(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    private static boolean refused(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
