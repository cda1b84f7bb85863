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
 * changes Sluice, until the test {@link #stop() stops} it: long-lived connections (sysbench opens one
 * per thread for the whole run), small tables in {@code sbtest}. The run ends when the test is done
 * rather than after a fixed time, so that a slow machine cannot end the load before the changes
 * (see {@code sysbench/read_only_until_stopped.lua}). Reads are autocommit ({@code --skip-trx}) so that a read-write endpoint
 * spreads them over the replicas instead of keeping them in a transaction on the primary.
 * sysbench stops at the first error with FATAL and never reconnects silently, so a clean run is
 * proof that no client saw an error or a dropped connection.
 */
final class SysbenchLoad implements AutoCloseable {
    static final int TABLES = 2;
    static final int TABLE_SIZE = 1000;
    private static final long TIMEOUT_SECONDS = 120;
    /** A safety limit only: the test stops the run long before. */
    private static final int MAX_SECONDS = 100;
    private static final String SCRIPT = "/sysbench/read_only_until_stopped.lua";
    private static final Pattern RECONNECTS = Pattern.compile("^\\s*reconnects:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern ERRORS = Pattern.compile("^\\s*ignored errors:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern QUERIES = Pattern.compile("^\\s*read:\\s+(\\d+)", Pattern.MULTILINE);

    private final Process process;
    private final Path output;
    private final Path stopFile;

    private SysbenchLoad(Process process, Path output, Path stopFile) {
        this.process = process;
        this.output = output;
        this.stopFile = stopFile;
    }

    /** Creates the tables, directly on the primary (the replicas get them by replication). */
    static void prepare(SandboxCluster cluster, Path dir) throws Exception {
        cleanup(cluster);
        run(command("oltp_read_only", cluster.primary().port(), 1, 0, "prepare"), dir.resolve("sysbench-prepare.txt"));
        cluster.waitForReplicasCaughtUp(java.time.Duration.ofSeconds(30));
    }

    static void cleanup(SandboxCluster cluster) {
        List<String> drops = new ArrayList<>();
        for (int i = 1; i <= TABLES; i++) {
            drops.add("DROP TABLE IF EXISTS sbtest.sbtest" + i);
        }
        cluster.exec(cluster.primary(), drops.toArray(String[]::new));
    }

    /** Starts {@code threads} long-lived connections reading through {@code port} until {@link #stop()}. */
    static SysbenchLoad start(int port, int threads, Path dir) throws Exception {
        Path out = dir.resolve("sysbench-run-" + port + ".txt");
        Path stop = dir.resolve("sysbench-stop-" + port);
        Files.deleteIfExists(stop);
        String script = Path.of(SysbenchLoad.class.getResource(SCRIPT).toURI()).toString();
        ProcessBuilder b = new ProcessBuilder(command(script, port, threads, MAX_SECONDS, "run"))
                .redirectErrorStream(true).redirectOutput(out.toFile());
        b.environment().put("SYSBENCH_STOP_FILE", stop.toString());
        return new SysbenchLoad(b.start(), out, stop);
    }

    private static List<String> command(String test, int port, int threads, int seconds, String what) {
        return List.of("sysbench", test, "--db-driver=mysql", "--mysql-host=127.0.0.1",
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

    /** Asks every sysbench thread to stop after its current event; sysbench then reports. */
    void stop() throws IOException {
        Files.writeString(stopFile, "stop");
    }

    /**
     * Stops the run, waits for its end and asserts that no client saw an error or lost its connection;
     * returns the number of reads done.
     */
    long assertCleanRun() throws Exception {
        assertThat(process.isAlive()).as("sysbench ran until the test was done:\n" + output()).isTrue();
        stop();
        String text = finish(process, output);
        assertThat(text).as("sysbench through Sluice").doesNotContain("FATAL", "error 2013", "error 2027", "Lost connection",
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
