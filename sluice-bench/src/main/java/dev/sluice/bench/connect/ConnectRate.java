package dev.sluice.bench.connect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Short-connection rate, straight to a server and through Sluice (BEHAVIOUR §7, session pool):
 * N times connect, run one query, quit, over T client threads, each way in turn for R rounds
 * (interleaved, so that a noisy moment of the shared machine hits both ways), and print the
 * connections per second both ways, their ratio, and — for the processes given with
 * {@code --watch} — the CPU time each spent per connection, read from /proc. A session pool saves
 * the backend login, so through Sluice should be faster than direct.
 *
 * <pre>
 *   java -cp benchmarks.jar dev.sluice.bench.connect.ConnectRate \
 *        --direct jdbc:mariadb://127.0.0.1:3306/test --sluice jdbc:mariadb://127.0.0.1:6033/test \
 *        [--user app --password app --connections 20000 --threads 8 --warmup 20000 --rounds 3
 *         --query "SELECT 1" --watch sluice=PID,primary=PID,replica=PID]
 * </pre>
 */
public final class ConnectRate {
    private ConnectRate() {
    }

    /** One way's outcome in one round: rate, and CPU microseconds per connection by watched process. */
    record Run(String name, int connections, double seconds, long errors, String firstError,
            Map<String, Double> cpuMicrosPerConnection) {
        double perSecond() {
            return connections / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        if (o.containsKey("help") || !o.containsKey("direct") || !o.containsKey("sluice")) {
            System.err.println("usage: ConnectRate --direct JDBC_URL --sluice JDBC_URL [--user U] [--password P]"
                    + " [--connections N] [--threads T] [--warmup W] [--rounds R] [--query SQL]"
                    + " [--watch NAME=PID,...]");
            System.exit(o.containsKey("help") ? 0 : 2);
        }
        String user = o.getOrDefault("user", "app");
        String password = o.getOrDefault("password", "app");
        int connections = Integer.parseInt(o.getOrDefault("connections", "20000"));
        int threads = Integer.parseInt(o.getOrDefault("threads", "8"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "20000"));
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        String query = o.getOrDefault("query", "SELECT 1");
        Map<String, Long> watched = watched(o.getOrDefault("watch", ""));
        String direct = withCredentials(o.get("direct"), user, password);
        String sluice = withCredentials(o.get("sluice"), user, password);

        // Warm both paths up (JIT on both sides, Sluice's pool), then measure. With 5,000 each way
        // Sluice's hot paths were still being compiled during the first measured round.
        run("direct", direct, warmup, threads, query, Map.of());
        run("sluice", sluice, warmup, threads, query, Map.of());
        List<Run> directRuns = new ArrayList<>();
        List<Run> sluiceRuns = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            directRuns.add(run("direct", direct, connections, threads, query, watched));
            sluiceRuns.add(run("sluice", sluice, connections, threads, query, watched));
        }
        System.out.printf(Locale.ROOT, "short connections (connect, %s, quit): %d each way per round, %d rounds"
                + " (interleaved), %d client threads%n", query, connections, rounds, threads);
        List<Double> ratios = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            Run d = directRuns.get(r);
            Run s = sluiceRuns.get(r);
            ratios.add(s.perSecond() / d.perSecond());
            System.out.printf(Locale.ROOT, "  round %d: direct %6.0f/s  sluice %6.0f/s  ratio %.2f%n", r + 1,
                    d.perSecond(), s.perSecond(), s.perSecond() / d.perSecond());
        }
        for (List<Run> runs : List.of(directRuns, sluiceRuns)) {
            Run first = runs.get(0);
            long errors = runs.stream().mapToLong(Run::errors).sum();
            String firstError = runs.stream().map(Run::firstError).filter(e -> e != null).findFirst().orElse(null);
            StringBuilder cpu = new StringBuilder();
            for (String process : watched.keySet()) {
                cpu.append(String.format(Locale.ROOT, "  %s %.0f µs", process,
                        median(runs.stream().map(x -> x.cpuMicrosPerConnection().get(process)).toList())));
            }
            System.out.printf(Locale.ROOT, "  %-7s median %6.0f connections/s  (%d errors%s)%s%n", first.name(),
                    median(runs.stream().map(Run::perSecond).toList()), errors,
                    firstError == null ? "" : "; first: " + firstError,
                    cpu.length() == 0 ? "" : "; CPU per connection:" + cpu);
        }
        System.out.printf(Locale.ROOT, "  ratio   median %6.2f  (through Sluice / direct)%n", median(ratios));
        if (directRuns.stream().mapToLong(Run::errors).sum() + sluiceRuns.stream().mapToLong(Run::errors).sum() > 0) {
            System.exit(1);
        }
    }

    static Run run(String name, String url, int connections, int threads, String query, Map<String, Long> watched)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicLong errors = new AtomicLong();
        List<String> firstError = new ArrayList<>(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        Map<String, Long> cpuBefore = cpuTicks(watched);
        long start = System.nanoTime();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(pool.submit(() -> {
                    while (next.getAndIncrement() < connections) {
                        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
                                ResultSet rs = st.executeQuery(query)) {
                            rs.next();
                        } catch (SQLException e) {
                            errors.incrementAndGet();
                            synchronized (firstError) {
                                if (firstError.isEmpty()) {
                                    firstError.add(e.getErrorCode() + " " + e.getMessage());
                                }
                            }
                        }
                    }
                }));
            }
            for (Future<?> w : workers) {
                w.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Long> cpuAfter = cpuTicks(watched);
        Map<String, Double> cpu = new LinkedHashMap<>();
        for (String process : watched.keySet()) {
            cpu.put(process, (cpuAfter.get(process) - cpuBefore.get(process)) * MICROS_PER_TICK / connections);
        }
        return new Run(name, connections, seconds, errors.get(), firstError.isEmpty() ? null : firstError.get(0), cpu);
    }

    /** Linux clock ticks (USER_HZ) are 1/100 s on every architecture the JVM runs on here. */
    private static final double MICROS_PER_TICK = 10_000.0;

    /** User + system CPU ticks of each watched process, from /proc/PID/stat. */
    private static Map<String, Long> cpuTicks(Map<String, Long> watched) throws IOException {
        Map<String, Long> ticks = new LinkedHashMap<>();
        for (Map.Entry<String, Long> w : watched.entrySet()) {
            String stat = Files.readString(Path.of("/proc", Long.toString(w.getValue()), "stat"));
            // The command name in parentheses may hold spaces: fields are counted after its ')'.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            final int utime = 11; // utime is field 14 of the line; the first after ')' is field 3
            ticks.put(w.getKey(), Long.parseLong(fields[utime]) + Long.parseLong(fields[utime + 1]));
        }
        return ticks;
    }

    private static Map<String, Long> watched(String spec) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String part : spec.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--watch takes NAME=PID[,NAME=PID…], not " + part);
            }
            out.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
        }
        return out;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String withCredentials(String url, String user, String password) {
        if (url.contains("user=")) {
            return url;
        }
        return url + (url.contains("?") ? "&" : "?") + "user=" + user + "&password=" + password;
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + args[i]);
            }
            String key = args[i].substring(2);
            if (key.equals("help")) {
                o.put(key, "");
            } else if (i + 1 < args.length) {
                o.put(key, args[++i]);
            } else {
                throw new IllegalArgumentException("--" + key + " needs a value");
            }
        }
        return o;
    }
}
