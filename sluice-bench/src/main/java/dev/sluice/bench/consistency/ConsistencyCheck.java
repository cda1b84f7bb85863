package dev.sluice.bench.consistency;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code consistency-check} (BEHAVIOUR §5): runs each check against each level's endpoint of a
 * running Sluice, first with replication as it is, then — with {@code --slow-replicas} — with the
 * replicas delayed on purpose, where {@code eventual} must show stale reads while every promised
 * check stays at zero. Prints a table per phase; {@code --report FILE} writes the markdown section.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar dev.sluice.bench.consistency.ConsistencyCheck \
 *     --url-eventual jdbc:mariadb://127.0.0.1:6351/test --url-session jdbc:mariadb://127.0.0.1:6352/test \
 *     --url-global jdbc:mariadb://127.0.0.1:6353/test --direct-primary jdbc:mariadb://127.0.0.1:3351/test \
 *     --replica jdbc:mariadb://127.0.0.1:3352/test,jdbc:mariadb://127.0.0.1:3353/test --slow-replicas 1s
 * </pre>
 *
 * Exit status: 0 all promises kept, 1 a promise broken (or unverifiable: errors, hangs, no reads),
 * 2 bad command line, 3 the slowed phase found no stale eventual read (the checker proved nothing).
 */
public final class ConsistencyCheck {
    private static final int USAGE_ERROR = 2;
    private static final int SETUP_ERROR = 4;
    /** Value space per millisecond of wall time between the starts of two runs. */
    private static final long VALUES_PER_MILLI = 1_000;

    private final CheckOptions options;
    private final Connections connections;

    private ConsistencyCheck(CheckOptions options) {
        this.options = options;
        this.connections = new Connections(options.user(), options.password(), options.queryTimeout());
    }

    public static void main(String[] args) {
        CheckOptions options;
        try {
            options = CheckOptions.parse(args);
        } catch (CheckOptions.UsageRequested help) {
            System.out.print(CheckOptions.USAGE);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.print(CheckOptions.USAGE);
            System.exit(USAGE_ERROR);
            return;
        }
        int status;
        try {
            status = new ConsistencyCheck(options).run();
        } catch (SQLException | IOException e) {
            System.err.println("error: " + e.getMessage());
            status = SETUP_ERROR;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = SETUP_ERROR;
        }
        // Session threads blocked in a hung proxy are daemons; do not wait for them.
        System.exit(status);
    }

    private int run() throws SQLException, IOException, InterruptedException {
        try (PrimaryProbe primary = PrimaryProbe.open(connections, options.directPrimary())) {
            RunSetup setup = RunSetup.describe(primary);
            Schema.prepare(primary.connection(), options.sessions(), options.writers());
            Schema.awaitReplicas(connections, options.replicas(), primary.gtidPosition());
            long primaryServerId = primary.serverId();
            List<PhaseResult> phases = new ArrayList<>();
            phases.add(phase(primary, primaryServerId, "Replication as it is (no artificial lag)", false,
                    options.duration()));
            ConsoleTable.print(System.out, phases.get(0));
            if (options.replicaDelay().isPresent()) {
                Duration delay = options.replicaDelay().get();
                PhaseResult slowed;
                try (ReplicationSlowdown ignored = ReplicationSlowdown.apply(connections, options.replicas(), delay)) {
                    slowed = phase(primary, primaryServerId, "Replication slowed: MASTER_DELAY = "
                            + delay.toSeconds() + " s on every replica", true, options.slowedDuration());
                }
                phases.add(slowed);
                ConsoleTable.print(System.out, slowed);
                try {
                    Schema.awaitReplicas(connections, options.replicas(), primary.gtidPosition());
                } catch (SQLException e) {
                    // The figures are in; a replica still catching up is the operator's to watch.
                    System.err.println("warning: after the slowdown: " + e.getMessage());
                }
            }
            Verdict verdict = new Verdict(phases);
            System.out.println();
            verdict.findings().forEach(f -> System.out.println("* " + f.replace("`", "")));
            if (options.report().isPresent()) {
                new MarkdownReport(options, setup, phases).writeTo(options.report().get());
                System.out.println("wrote '" + MarkdownReport.TITLE + "' in " + options.report().get());
            }
            return verdict.exitStatus();
        }
    }

    private PhaseResult phase(PrimaryProbe primary, long primaryServerId, String title, boolean slowed,
            Duration measured) throws SQLException, InterruptedException {
        WorkloadDriver driver = new WorkloadDriver(primary, options.queryTimeout(),
                options.sluiceMetrics().map(SluiceMetrics::new));
        List<WorkloadResult> results = new ArrayList<>();
        for (CheckMode mode : options.modes()) {
            for (Level level : options.levels()) {
                System.err.printf("%s: %s at %s, %d s ...%n", slowed ? "slowed" : "normal", mode.description(),
                        level.configName(), measured.toSeconds());
                Target target = new Target(level, options.endpoint(level), options.directPrimary(), primaryServerId,
                        connections, options.sessions(), options.writers(), options.writerRate(), freshValueBase());
                WorkloadResult r = driver.run(Workload.of(mode), target, options.warmup(), measured);
                System.err.printf("  %d reads, %d violations, %s on replicas, %d errors%n", r.checks(),
                        r.violations(), ResultColumns.percent(r.replicaShare()), r.errors());
                results.add(r);
            }
        }
        return new PhaseResult(title, slowed, measured, List.copyOf(results));
    }

    /**
     * Above every value an earlier run can have written, so a stale row left by an earlier run
     * always reads as older: each run starts at a later millisecond than the one before, and no
     * session writes a thousand values per millisecond.
     */
    private static long freshValueBase() {
        return System.currentTimeMillis() * VALUES_PER_MILLI;
    }
}
