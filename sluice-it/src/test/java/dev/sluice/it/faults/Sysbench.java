package dev.sluice.it.faults;

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
 * sysbench 1.0 against a port, with small tables in a database of its own ({@value #DATABASE}), so
 * that a fault test never meets another test's {@code sbtest} tables. sysbench has no plain error
 * count: with {@code --mysql-ignore-errors=none} (its default) the first error a client sees aborts
 * the run with {@code FATAL}; with a list of codes, those are counted as "ignored errors".
 */
final class Sysbench {
    static final String DATABASE = "sluice_faults";
    private static final int TABLES = 2;
    private static final int TABLE_SIZE = 1000;
    private static final long PREPARE_TIMEOUT_SECONDS = 60;
    /** A run gets this long beyond its --time to finish: anything later is a hang. */
    private static final long FINISH_SLACK_SECONDS = 30;
    private static final Pattern RECONNECTS = Pattern.compile("^\\s*reconnects:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern IGNORED = Pattern.compile("^\\s*ignored errors:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern QUERIES = Pattern.compile("^\\s*queries:\\s+(\\d+)", Pattern.MULTILINE);

    /** A run in the background. */
    record Run(Process process, Path output, int seconds) {
        /** Waits for the end of the run (failing on a hang) and returns what sysbench printed. */
        String finish() throws IOException, InterruptedException {
            boolean finished = process.waitFor(seconds + FINISH_SLACK_SECONDS, TimeUnit.SECONDS);
            if (!finished) {
                process.destroyForcibly();
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(finished).as("sysbench finished in time (no hang):\n" + text).isTrue();
            return text;
        }

        boolean isRunning() {
            return process.isAlive();
        }
    }

    private final int port;
    private final Path dir;
    private final String user;
    private final String password;

    Sysbench(int port, Path dir) {
        this(port, dir, SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD);
    }

    /** Clients log in as {@code user}. */
    Sysbench(int port, Path dir, String user, String password) {
        this.port = port;
        this.dir = dir;
        this.user = user;
        this.password = password;
    }

    static void createDatabase(SandboxCluster cluster) {
        cluster.exec(cluster.primary(), "CREATE DATABASE IF NOT EXISTS " + DATABASE);
    }

    static void dropDatabase(SandboxCluster cluster) {
        cluster.exec(cluster.primary(), "DROP DATABASE IF EXISTS " + DATABASE);
    }

    /** Creates the tables (the run's workload name does not matter for this). */
    void prepare() throws IOException, InterruptedException {
        Run r = start("prepare", "oltp_read_only", 1, 0, List.of());
        String out = r.finish();
        assertThat(r.process().exitValue()).as("sysbench prepare:\n" + out).isZero();
    }

    /** Starts {@code workload} for {@code seconds} with {@code threads} clients and extra options. */
    Run run(String workload, int threads, int seconds, String... options) throws IOException {
        return start("run", workload, threads, seconds, List.of(options));
    }

    private Run start(String command, String workload, int threads, int seconds, List<String> options)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("sysbench", workload, "--db-driver=mysql",
                "--mysql-host=127.0.0.1", "--mysql-port=" + port, "--mysql-user=" + user,
                "--mysql-password=" + password, "--mysql-db=" + DATABASE, "--tables=" + TABLES,
                "--table-size=" + TABLE_SIZE, "--threads=" + threads, "--report-interval=0"));
        if (seconds > 0) {
            args.add("--time=" + seconds);
        }
        args.addAll(options);
        args.add(command);
        Path out = Files.createTempFile(dir, "sysbench-" + workload + "-" + command + "-", ".txt");
        Process p = new ProcessBuilder(args).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return new Run(p, out, seconds == 0 ? (int) PREPARE_TIMEOUT_SECONDS : seconds);
    }

    static long reconnects(String output) {
        return number(RECONNECTS, output);
    }

    static long ignoredErrors(String output) {
        return number(IGNORED, output);
    }

    static long queries(String output) {
        return number(QUERIES, output);
    }

    private static long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("sysbench output has " + p + ":\n" + text).isTrue();
        return Long.parseLong(m.group(1));
    }
}
