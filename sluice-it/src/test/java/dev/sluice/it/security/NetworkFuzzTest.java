package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.SandboxNode;
import io.netty.util.concurrent.EventExecutor;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A million fuzzed packets at a live endpoint — mutated logins, TLS ClientHellos and commands,
 * from a seed corpus of real clients' packets ({@link FuzzSeeds}), sent over many connections by
 * {@link NetworkFuzzer} — and afterwards: Sluice did not crash and no event loop is stuck (each
 * runs a task, and a fresh client logs in and queries), no Netty buffer leaked (paranoid
 * detection, checked when {@link GuardedSluice} closes), the heap is back near where it was, and
 * the well-behaved session running alongside saw no error. Every proper login of the fuzzer
 * itself, thousands of them during the campaign, is also a fresh client that must be unaffected.
 */
class NetworkFuzzTest {
    /** A million; a smaller number can be asked for while working on the test itself. */
    private static final long FUZZED_PACKETS = Long.getLong("sluice.fuzz.packets", 1_000_000);
    private static final int CLIENT_THREADS = 24;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
    /** Generous: the heap holds no per-connection state once the connections are gone. */
    private static final long HEAP_MARGIN_BYTES = 64L << 20;
    private static final Duration HEAP_SETTLE = Duration.ofSeconds(60);
    private static final Duration LOOP_TASK_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration BACKENDS_CLOSE = Duration.ofSeconds(30);
    private static final String QUIET_LOGGER = "dev.sluice";

    // A user with no privilege at all: a mutation that turns into SHUTDOWN, REFRESH or a KILL of
    // another user's session is refused, as for any client. Failed logins are the point here: the
    // address must not get blocked for them. The links to the nodes are in clear: the fuzzing is of
    // the client side, and the tens of thousands of backend logins of the campaign would otherwise
    // spend most of its time in TLS handshakes.
    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            limits: {login-failures: {max: 0}, handshake-timeout: 5s}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """)
            .nodeKeys("tls: off")
            .beforeStart(cluster -> cluster.exec(cluster.primary(),
                    "DROP USER IF EXISTS '" + FuzzSeeds.USER + "'@'127.0.0.1'",
                    "CREATE USER '" + FuzzSeeds.USER + "'@'127.0.0.1' IDENTIFIED BY '" + FuzzSeeds.PASSWORD + "'"))
            .afterStop(cluster -> cluster.exec(cluster.primary(),
                    "DROP USER IF EXISTS '" + FuzzSeeds.USER + "'@'127.0.0.1'"));

    @Test
    void aMillionFuzzedPacketsLeaveSluiceServingWithNoLeakAndNoHarmToOthers() throws Exception {
        FuzzSeeds seeds = FuzzSeeds.capture(sluice.port("rw"));
        long baseline = usedHeapAfterGc();
        NetworkFuzzer fuzzer = new NetworkFuzzer(sluice.port("rw"), seeds, READ_TIMEOUT);
        long seed = System.nanoTime();
        Logger quiet = (Logger) LoggerFactory.getLogger(QUIET_LOGGER);
        Level before = quiet.getLevel();
        long started = System.nanoTime();
        long cpuBefore = processCpuNanos();
        // Thousands of refused logins would each log a line.
        quiet.setLevel(Level.WARN);
        try {
            fuzzer.run(FUZZED_PACKETS, CLIENT_THREADS, seed);
        } finally {
            quiet.setLevel(before);
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        long cpuSeconds = TimeUnit.NANOSECONDS.toSeconds(processCpuNanos() - cpuBefore);
        System.out.printf("network fuzz: %,d fuzzed packets (+%,d intact) over %,d connections in %d s (%d s of CPU), seed %d,"
                + " from %d logins, %d SSLRequests, %d ClientHellos, %d commands; outcomes %s%n",
                fuzzer.fuzzed(), fuzzer.intactSent(), fuzzer.connections(), seconds, cpuSeconds, seed, seeds.logins().size(),
                seeds.sslRequests().size(), seeds.clientHellos().size(), seeds.commandCount(), fuzzer.outcomes());

        assertThat(fuzzer.problems()).as("problems seen by the fuzzing clients (seed %d)", seed).isEmpty();
        assertThat(fuzzer.fuzzed()).isGreaterThanOrEqualTo(FUZZED_PACKETS);
        assertThat(fuzzer.outcomes()).as("connections went through the command phase to the end")
                .containsKey("command: sentinel answered");
        sluice.assertBystanderUnaffected();
        everyEventLoopRunsATask();
        aFreshClientLogsInAndQueries();
        await("the heap back near its baseline of " + baseline / (1 << 20) + " MiB").atMost(HEAP_SETTLE)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> usedHeapAfterGc() <= baseline + HEAP_MARGIN_BYTES);
        System.out.printf("network fuzz: used heap after GC %d MiB before, %d MiB after%n", baseline >> 20,
                usedHeapAfterGc() >> 20);
        for (SandboxNode node : sluice.cluster().nodes()) {
            await("every backend connection of the fuzzing sessions closed on " + node.name()).atMost(BACKENDS_CLOSE)
                    .pollInterval(Duration.ofMillis(500)).until(() -> sluice.cluster().queryString(node,
                            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = '" + FuzzSeeds.USER + "'"),
                            n -> n.equals("0"));
        }
        // The buffer-leak check runs when Sluice is closed (GuardedSluice), after every connection is gone.
    }

    private static void everyEventLoopRunsATask() throws Exception {
        List<Future<?>> tasks = new ArrayList<>();
        for (EventExecutor loop : sluice.sluice().server().ioEventLoops()) {
            tasks.add(loop.submit(() -> { }));
        }
        for (Future<?> t : tasks) {
            t.get(LOOP_TASK_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static void aFreshClientLogsInAndQueries() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.sluice().mariadbUrl("rw", "connectTimeout=30000"));
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 6 * 7")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(42);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
