package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.SandboxCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * sysbench {@code oltp_read_only} through a Sluice endpoint, running in the background while a test
 * changes Sluice: long-lived connections (sysbench opens one per thread for the whole run), small
 * tables in {@code sbtest}. Reads are autocommit ({@code --skip-trx}) so that a read-write endpoint
 * spreads them over the replicas instead of keeping them in a transaction on the primary.
 * sysbench stops at the first error with FATAL and never reconnects silently, so a clean run is
 * proof that no client saw an error or a dropped connection.
 */
final class SysbenchLoad implements AutoCloseable {
    static final int TABLES = 2;
    static final int TABLE_SIZE = 1000;
    private static final long TIMEOUT_SECONDS = 120;
    private static final Pattern RECONNECTS = Pattern.compile("^\\s*reconnects:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern ERRORS = Pattern.compile("^\\s*ignored errors:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern QUERIES = Pattern.compile("^\\s*read:\\s+(\\d+)", Pattern.MULTILINE);

    private final Process process;
    private final Path output;

    private SysbenchLoad(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** Creates the tables, directly on the primary (the replicas get them by replication). */
    static void prepare(SandboxCluster cluster, Path dir) throws Exception {
        cleanup(cluster);
        run(command(cluster.primary().port(), 1, 0, "prepare"), dir.resolve("sysbench-prepare.txt"));
        cluster.waitForReplicasCaughtUp(java.time.Duration.ofSeconds(30));
    }

    static void cleanup(SandboxCluster cluster) {
        List<String> drops = new ArrayList<>();
        for (int i = 1; i <= TABLES; i++) {
            drops.add("DROP TABLE IF EXISTS sbtest.sbtest" + i);
        }
        cluster.exec(cluster.primary(), drops.toArray(String[]::new));
    }

    /** Starts {@code threads} long-lived connections reading for {@code seconds} through {@code port}. */
    static SysbenchLoad start(int port, int threads, int seconds, Path dir) throws IOException {
        Path out = dir.resolve("sysbench-run-" + port + ".txt");
        Process p = new ProcessBuilder(command(port, threads, seconds, "run")).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        return new SysbenchLoad(p, out);
    }

    private static List<String> command(int port, int threads, int seconds, String what) {
        return List.of("sysbench", "oltp_read_only", "--db-driver=mysql", "--mysql-host=127.0.0.1",
                "--mysql-port=" + port, "--mysql-user=" + SandboxCluster.APP_USER,
                "--mysql-password=" + SandboxCluster.APP_PASSWORD, "--mysql-db=sbtest", "--tables=" + TABLES,
                "--table-size=" + TABLE_SIZE, "--threads=" + threads, "--time=" + seconds, "--report-interval=0",
                "--skip-trx=on", "--db-ps-mode=auto", what);
    }

    private static String run(List<String> command, Path out) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return finish(p, out);
    }

    private static String finish(Process p, Path out) throws Exception {
        boolean finished = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(finished).as("sysbench finished:\n" + text).isTrue();
        assertThat(p.exitValue()).as("sysbench exit code:\n" + text).isZero();
        return text;
    }

    boolean isRunning() {
        return process.isAlive();
    }

    /** Output so far (for messages). */
    String output() throws IOException {
        return Files.readString(output, StandardCharsets.UTF_8);
    }

    /**
     * Waits for the run to end and asserts that no client saw an error or lost its connection;
     * returns the number of reads done.
     */
    long assertCleanRun() throws Exception {
        String text = finish(process, output);
        assertThat(text).as("sysbench through Sluice").doesNotContain("FATAL", "error 2013", "Lost connection",
                "ALERT");
        assertThat(number(RECONNECTS, text)).as("reconnects:\n" + text).isZero();
        assertThat(number(ERRORS, text)).as("errors:\n" + text).isZero();
        long reads = number(QUERIES, text);
        assertThat(reads).as("reads done:\n" + text).isPositive();
        return reads;
    }

    private static long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("sysbench output has " + p + ":\n" + text).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
