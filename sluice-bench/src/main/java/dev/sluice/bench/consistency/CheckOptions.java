package dev.sluice.bench.consistency;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The command line of {@link ConsistencyCheck}. Every endpoint is a plain JDBC URL, so the checker
 * can point at any Sluice (or at anything else that claims these promises).
 */
record CheckOptions(
        Map<Level, String> endpoints,
        List<Level> levels,
        Set<CheckMode> modes,
        String directPrimary,
        List<String> replicas,
        String user,
        String password,
        int sessions,
        int writers,
        int writerRate,
        Duration duration,
        Duration warmup,
        Duration queryTimeout,
        Optional<Duration> replicaDelay,
        Duration slowedDuration,
        Optional<Path> report,
        String label,
        boolean append,
        String machine,
        Optional<Path> sluiceConfig,
        Optional<String> sluiceMetrics,
        List<String> arguments) {

    static final String USAGE = """
            Usage: ConsistencyCheck --direct-primary URL [--url-eventual URL] [--url-session URL]
                                    [--url-global URL] [OPTIONS]

            Checks Sluice's consistency levels (BEHAVIOUR §5) against a running Sluice and counts
            violations, the share of reads on replicas and read latency per level.

              --url-eventual URL    JDBC URL of a read-write endpoint with consistency: eventual
              --url-session URL     ... with consistency: session
              --url-global URL      ... with consistency: global
              --direct-primary URL  JDBC URL of the primary itself (schema, server_id, Questions,
                                    the writers of the global check)
              --replica URL         JDBC URL of a replica (repeatable or comma-separated): waited
                                    on after the schema is created; slowed by --slow-replicas
              --user U --password P account for every URL (default app / app)
              --mode M[,M]          session | global | token | all (default all)
              --levels L[,L]        levels to run (default: every level given a URL)
              --sessions N          client sessions per run (default 32)
              --writers N           writers of the global check, on the primary (default 4)
              --writer-rate N       commits per second per writer, 0 = as fast as possible
                                    (default 50)
              --duration D          measured time per run, e.g. 30s, 2m (default 30s)
              --warmup D            unmeasured time before each run (default 2s)
              --query-timeout D     a statement taking longer counts as an error (default 10s)
              --slow-replicas D     then run again with MASTER_DELAY = D on every --replica
                                    (e.g. 1s), restored afterwards: the run where eventual
                                    must show stale reads
              --slowed-duration D   measured time per run while slowed (default 10s)
              --report FILE         write the section '## Consistency levels (consistency-check)'
                                    in FILE (other sections are kept)
              --label TEXT          heading of this run in the report (default "Run")
              --append              add this run to the section instead of replacing it (to
                                    report several configurations side by side)
              --machine TEXT        how the machine is shared, for the report
              --sluice-config FILE  Sluice's configuration, quoted in the report
              --sluice-metrics URL  Sluice's Prometheus endpoint: report its consistency waits
                                    per run (endpoints named after the levels)
            """;

    private static final int DEFAULT_SESSIONS = 32;
    private static final int DEFAULT_WRITERS = 4;
    private static final int DEFAULT_WRITER_RATE = 50;
    private static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    private static final Duration DEFAULT_WARMUP = Duration.ofSeconds(2);
    private static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration DEFAULT_SLOWED_DURATION = Duration.ofSeconds(10);

    /** The URL of {@code level}'s endpoint; present for every level in {@link #levels()}. */
    String endpoint(Level level) {
        return endpoints.get(level);
    }

    static CheckOptions parse(String[] args) {
        Map<Level, String> endpoints = new EnumMap<>(Level.class);
        List<Level> levels = new ArrayList<>();
        Set<CheckMode> modes = EnumSet.allOf(CheckMode.class);
        String directPrimary = null;
        List<String> replicas = new ArrayList<>();
        String user = "app";
        String password = "app";
        int sessions = DEFAULT_SESSIONS;
        int writers = DEFAULT_WRITERS;
        int writerRate = DEFAULT_WRITER_RATE;
        Duration duration = DEFAULT_DURATION;
        Duration warmup = DEFAULT_WARMUP;
        Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
        Optional<Duration> replicaDelay = Optional.empty();
        Duration slowedDuration = DEFAULT_SLOWED_DURATION;
        Optional<Path> report = Optional.empty();
        String label = "Run";
        boolean append = false;
        String machine = "";
        Optional<Path> sluiceConfig = Optional.empty();
        Optional<String> sluiceMetrics = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("-h") || option.equals("--help")) {
                throw new UsageRequested();
            }
            if (option.equals("--append")) {
                append = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--url-eventual" -> endpoints.put(Level.EVENTUAL, value);
                case "--url-session" -> endpoints.put(Level.SESSION, value);
                case "--url-global" -> endpoints.put(Level.GLOBAL, value);
                case "--direct-primary" -> directPrimary = value;
                case "--replica" -> replicas.addAll(list(value));
                case "--user" -> user = value;
                case "--password" -> password = value;
                case "--mode" -> modes = modes(value);
                case "--levels" -> list(value).forEach(l -> levels.add(Level.parse(l)));
                case "--sessions" -> sessions = positive(option, value);
                case "--writers" -> writers = positive(option, value);
                case "--writer-rate" -> writerRate = notNegative(option, value);
                case "--duration" -> duration = duration(option, value);
                case "--warmup" -> warmup = duration(option, value);
                case "--query-timeout" -> queryTimeout = duration(option, value);
                case "--slow-replicas" -> replicaDelay = Optional.of(duration(option, value));
                case "--slowed-duration" -> slowedDuration = duration(option, value);
                case "--report" -> report = Optional.of(Path.of(value));
                case "--label" -> label = value;
                case "--machine" -> machine = value;
                case "--sluice-config" -> sluiceConfig = Optional.of(Path.of(value));
                case "--sluice-metrics" -> sluiceMetrics = Optional.of(value);
                default -> throw new IllegalArgumentException("unknown option '" + option + "'");
            }
        }
        if (directPrimary == null) {
            throw new IllegalArgumentException("--direct-primary is required");
        }
        if (levels.isEmpty()) {
            levels.addAll(endpoints.keySet());
        }
        for (Level level : levels) {
            if (!endpoints.containsKey(level)) {
                throw new IllegalArgumentException("level " + level.configName() + " needs --url-" + level.configName());
            }
        }
        if (levels.isEmpty()) {
            throw new IllegalArgumentException("give at least one of --url-eventual, --url-session, --url-global");
        }
        if (replicaDelay.isPresent() && replicas.isEmpty()) {
            throw new IllegalArgumentException("--slow-replicas needs the replicas (--replica URL)");
        }
        if (replicaDelay.isPresent() && replicaDelay.get().toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("--slow-replicas takes whole seconds (MASTER_DELAY is in seconds)");
        }
        return new CheckOptions(endpoints, List.copyOf(levels.stream().distinct().sorted().toList()), modes,
                directPrimary, List.copyOf(replicas), user, password, sessions, writers, writerRate, duration, warmup,
                queryTimeout, replicaDelay, slowedDuration, report, label, append, machine, sluiceConfig, sluiceMetrics, List.of(args));
    }

    private static Set<CheckMode> modes(String value) {
        Set<CheckMode> modes = EnumSet.noneOf(CheckMode.class);
        for (String m : list(value)) {
            if (m.equals("all")) {
                modes.addAll(EnumSet.allOf(CheckMode.class));
            } else {
                modes.add(CheckMode.parse(m));
            }
        }
        return modes;
    }

    private static List<String> list(String value) {
        List<String> items = new ArrayList<>();
        for (String item : value.split(",")) {
            if (!item.isBlank()) {
                items.add(item.trim());
            }
        }
        return items;
    }

    private static int notNegative(String option, String value) {
        return value.equals("0") ? 0 : positive(option, value);
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " takes a positive whole number, got '" + value + "'");
    }

    /** {@code 500ms}, {@code 30s}, {@code 2m}; a bare number is seconds. */
    static Duration duration(String option, String value) {
        String v = value.trim();
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a duration such as 500ms, 30s or 2m, got '" + value + "'");
        }
    }

    /** {@code -h} or {@code --help}: print {@link #USAGE} and stop. */
    static final class UsageRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageRequested() {
            super(null, null, false, false);
        }
    }
}
