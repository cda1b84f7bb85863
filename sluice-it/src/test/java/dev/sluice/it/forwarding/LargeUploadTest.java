package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.Bystander;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceProcess;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other direction of "large": what the client sends. A LOAD DATA LOCAL INFILE of a file larger
 * than Sluice's whole buffer memory, and one COM_QUERY of 96 MB (6 frames of 16 MB), through a
 * Sluice process with 64 MB of direct memory (small, so that the test stays quick: the server
 * parses LOAD DATA at some 15 MB/s). Sluice must pass them on as they come —
 * holding back the client when the server is slower — not gather them in memory.
 */
class LargeUploadTest {
    private static final long FILE_BYTES = 96L << 20;
    private static final long QUERY_FILLER = 96L << 20;
    private static final int LINE_BYTES = 64 * 1024;
    private static final String SINK = "it_upload_sink";

    @TempDir
    static Path dir;
    private static SandboxCluster cluster;
    private static SluiceProcess sluice;
    private static Bystander bystander;

    @BeforeAll
    static void start() throws Exception {
        cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + SINK, "CREATE TABLE test." + SINK + " (n INT NOT NULL)");
        sluice = SluiceProcess.start(cluster, dir, "upload", "", List.of("-Xmx128m", "-XX:MaxDirectMemorySize=64m",
                "-Dio.netty.leakDetection.level=paranoid"));
        bystander = Bystander.start(sluice.mariadbUrl("socketTimeout=20000"));
    }

    @AfterEach
    void bystanderUnaffected() {
        bystander.assertProgressing();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (bystander != null) {
                bystander.close();
            }
        } finally {
            if (sluice != null) {
                sluice.close();
            }
            cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + SINK);
        }
        assertThat(sluice.output()).as("Sluice process output").doesNotContain("OutOfMemoryError", "LEAK:");
    }

    @Test
    void aLoadDataLocalInfileLargerThanSluicesMemoryGoesThrough() throws Exception {
        Path file = dir.resolve("big.csv");
        // Long lines, few rows: the server parses them fast. Each stores 7 (the rest is cut, with a warning).
        byte[] line = new byte[LINE_BYTES];
        Arrays.fill(line, (byte) 'y');
        line[0] = '7';
        line[line.length - 1] = '\n';
        long lines = FILE_BYTES / LINE_BYTES;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            for (long i = 0; i < lines; i++) {
                out.write(line);
            }
        }
        Path output = dir.resolve("load.out");
        Process p = new ProcessBuilder(List.of("mariadb", "-h127.0.0.1", "-P" + sluice.port(), "-u" + SandboxCluster.APP_USER,
                "-p" + SandboxCluster.APP_PASSWORD, "--local-infile=1", "--batch", "--skip-column-names",
                "--connect-timeout=5", "test", "-e", "LOAD DATA LOCAL INFILE '" + file + "' INTO TABLE " + SINK + "; "
                        + "SELECT COUNT(*), SUM(n) FROM " + SINK + "; SELECT 'alive after the upload'"))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean finished = p.waitFor(120, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        Files.delete(file);
        assertThat(finished).as("the upload finished:\n" + text).isTrue();
        assertThat(text).as("mariadb CLI output").doesNotContain("ERROR")
                .contains(lines + "\t" + (7 * lines), "alive after the upload");
        assertThat(p.exitValue()).isZero();
        assertThat(sluice.isAlive()).isTrue();
    }

    @Test
    void a96MegabyteQueryGoesThrough() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.login(sluice.port(), SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD,
                "test", Duration.ofSeconds(60))) {
            c.sendHugeQuery("SELECT LENGTH('", (byte) 'z', QUERY_FILLER, "') AS n");
            assertThat(c.readResult()).as("the server's answer through Sluice")
                    .containsExactly(List.of(Long.toString(QUERY_FILLER)));
            assertThat(c.query("SELECT 'after'")).containsExactly(List.of("after"));
        }
        assertThat(sluice.isAlive()).isTrue();
    }
}
