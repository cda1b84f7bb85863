package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.SandboxCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * sysbench 1.0 run as a separate process against a port, small tables in {@code sbtest}. It prints
 * no plain error count: with {@code --mysql-ignore-errors=none} (the default) any error aborts the
 * run with FATAL and a non-zero exit; errors named in {@code --mysql-ignore-errors} are retried and
 * counted as "ignored errors".
 */
final class Sysbench {
    static final int TABLES = 2;
    static final int TABLE_SIZE = 1000;
    private static final long TIMEOUT_SECONDS = 120;
    private static final Pattern RECONNECTS = Pattern.compile("^\\s*reconnects:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern IGNORED = Pattern.compile("^\\s*ignored errors:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern TRANSACTIONS = Pattern.compile("^\\s*transactions:\\s+(\\d+)", Pattern.MULTILINE);

    private final Path dir;

    Sysbench(Path dir) {
        this.dir = dir;
    }

    /** The text sysbench printed; fails unless it exited 0 in time. */
    String run(int port, String test, String command, String... options) throws Exception {
        Path out = Files.createTempFile(dir, "sysbench-" + test + "-" + command, ".txt");
        List<String> args = new ArrayList<>(List.of("sysbench", test, "--db-driver=mysql", "--mysql-host=127.0.0.1",
                "--mysql-port=" + port, "--mysql-user=" + SandboxCluster.APP_USER,
                "--mysql-password=" + SandboxCluster.APP_PASSWORD, "--mysql-db=sbtest", "--tables=" + TABLES,
                "--table-size=" + TABLE_SIZE, "--report-interval=0", "--db-ps-mode=auto"));
        args.addAll(List.of(options));
        args.add(command);
        Process p = new ProcessBuilder(args).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean finished = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(finished).as("sysbench " + test + " " + command + " finished:\n" + text).isTrue();
        assertThat(p.exitValue()).as("sysbench " + test + " " + command + " exit code:\n" + text).isZero();
        return text;
    }

    /** A run that saw no error: no FATAL, no reconnect, no ignored error, some transactions. */
    static void assertNoErrors(String run) {
        assertThat(run).as("sysbench output").doesNotContain("FATAL", "error 2013", "error 2027", "Lost connection");
        assertThat(number(RECONNECTS, run)).as("reconnects:\n" + run).isZero();
        assertThat(number(IGNORED, run)).as("ignored errors:\n" + run).isZero();
        assertThat(number(TRANSACTIONS, run)).as("transactions:\n" + run).isPositive();
    }

    private static long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("sysbench output has " + p + ":\n" + text).isTrue();
        return Long.parseLong(m.group(1));
    }
}
