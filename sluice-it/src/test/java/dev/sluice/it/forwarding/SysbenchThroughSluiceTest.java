package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sysbench {@code oltp_read_write} (server-side prepared statements, transactions, 4 threads)
 * through Sluice: no error at all, and afterwards the tables read through Sluice checksum the same
 * as read directly from the primary.
 */
class SysbenchThroughSluiceTest {
    private static final int TABLES = 2;
    private static final long SYSBENCH_TIMEOUT_SECONDS = 120;
    /**
     * Deadlock, lock wait timeout, record changed: the server's own answers to contention, which
     * sysbench retries (its default). Any other error aborts the run with FATAL.
     */
    private static final String SERVER_CONCURRENCY_ERRORS = "1213,1205,1020";
    /** sysbench 1.0 prints no plain error count: errors abort the run (--mysql-ignore-errors=none) with FATAL. */
    private static final Pattern RECONNECTS = Pattern.compile("^\\s*reconnects:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern IGNORED = Pattern.compile("^\\s*ignored errors:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern TRANSACTIONS = Pattern.compile("^\\s*transactions:\\s+(\\d+)", Pattern.MULTILINE);
    private static SluiceHarness sluice;
    private static SandboxCluster cluster;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, ForwardingEndpoint.PRIMARY_ONLY);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        List<String> drops = new ArrayList<>();
        for (int i = 1; i <= TABLES; i++) {
            drops.add("DROP TABLE IF EXISTS sbtest.sbtest" + i);
        }
        cluster.exec(cluster.primary(), drops.toArray(String[]::new));
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void oltpReadWriteRunsWithoutErrorsAndLeavesTheSameTables() throws Exception {
        int port = sluice.port("rw");
        sysbench(port, "cleanup");
        String prepare = sysbench(port, "prepare");
        assertThat(prepare).contains("Creating table 'sbtest1'", "Inserting 2000 records into 'sbtest2'");

        String run = sysbench(port, "run");
        assertThat(run).as("sysbench errors through Sluice").doesNotContain("FATAL", "error 2013", "error 2027", "Lost connection");
        assertThat(number(RECONNECTS, run)).as("sysbench reconnects through Sluice:\n" + run).isZero();
        assertThat(number(IGNORED, run)).as("sysbench retried deadlocks through Sluice (a few are normal):\n" + run)
                .isLessThan(number(TRANSACTIONS, run) / 10 + 1);
        assertThat(number(TRANSACTIONS, run)).as("transactions through Sluice").isPositive();

        String direct = checksums("jdbc:mariadb://127.0.0.1:" + cluster.primary().port() + "/sbtest?user="
                + SandboxCluster.APP_USER + "&password=" + SandboxCluster.APP_PASSWORD);
        String through = checksums("jdbc:mariadb://127.0.0.1:" + port + "/sbtest?user=" + SandboxCluster.APP_USER
                + "&password=" + SandboxCluster.APP_PASSWORD);
        assertThat(through).as("CHECKSUM TABLE through Sluice vs direct").isEqualTo(direct).doesNotContain("null");

        sysbench(port, "cleanup");
    }

    private static long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("sysbench output has " + p + ":\n" + text).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String checksums(String url) throws Exception {
        StringBuilder b = new StringBuilder();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (int i = 1; i <= TABLES; i++) {
                try (ResultSet rs = s.executeQuery("CHECKSUM TABLE sbtest" + i + " EXTENDED")) {
                    rs.next();
                    b.append(rs.getString(1)).append('=').append(rs.getString(2)).append('\n');
                }
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(k) FROM sbtest" + i)) {
                    rs.next();
                    b.append("count=").append(rs.getLong(1)).append(" sum(k)=").append(rs.getLong(2)).append('\n');
                }
            }
        }
        return b.toString();
    }

    private String sysbench(int port, String command) throws Exception {
        Path out = dir.resolve("sysbench-" + command + ".txt");
        Process p = new ProcessBuilder(List.of("sysbench", "oltp_read_write", "--db-driver=mysql",
                "--mysql-host=127.0.0.1", "--mysql-port=" + port, "--mysql-user=" + SandboxCluster.APP_USER,
                "--mysql-password=" + SandboxCluster.APP_PASSWORD, "--mysql-db=sbtest", "--tables=" + TABLES,
                "--table-size=2000", "--threads=4", "--time=5", "--report-interval=0", "--db-ps-mode=auto",
                "--mysql-ignore-errors=" + SERVER_CONCURRENCY_ERRORS, command))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        boolean finished = p.waitFor(SYSBENCH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(finished).as("sysbench " + command + " finished:\n" + text).isTrue();
        assertThat(p.exitValue()).as("sysbench " + command + " exit code:\n" + text).isZero();
        return text;
    }
}
