package dev.sluice.bench.connect;

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
 * Short-connection rate, straight to a server and through Sluice (issue 7; SPEC §7, session pool):
 * N times connect, run one query, quit, over T client threads, each way in turn, and print the
 * connections per second both ways and their ratio. A session pool saves the backend login, so
 * through Sluice should be faster than direct.
 *
 * <pre>
 *   java -cp benchmarks.jar dev.sluice.bench.connect.ConnectRate \
 *        --direct jdbc:mariadb://127.0.0.1:3306/test --sluice jdbc:mariadb://127.0.0.1:6033/test \
 *        [--user app --password app --connections 20000 --threads 8 --warmup 1000 --query "SELECT 1"]
 * </pre>
 */
public final class ConnectRate {
    private ConnectRate() {
    }

    /** One way's outcome. */
    record Run(String name, int connections, double seconds, long errors, String firstError) {
        double perSecond() {
            return connections / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        if (o.containsKey("help") || !o.containsKey("direct") || !o.containsKey("sluice")) {
            System.err.println("usage: ConnectRate --direct JDBC_URL --sluice JDBC_URL [--user U] [--password P]"
                    + " [--connections N] [--threads T] [--warmup W] [--query SQL]");
            System.exit(o.containsKey("help") ? 0 : 2);
        }
        String user = o.getOrDefault("user", "app");
        String password = o.getOrDefault("password", "app");
        int connections = Integer.parseInt(o.getOrDefault("connections", "20000"));
        int threads = Integer.parseInt(o.getOrDefault("threads", "8"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "1000"));
        String query = o.getOrDefault("query", "SELECT 1");
        String direct = withCredentials(o.get("direct"), user, password);
        String sluice = withCredentials(o.get("sluice"), user, password);

        // Warm both paths up (JIT, Sluice's pool), then measure.
        run("direct", direct, warmup, threads, query);
        run("sluice", sluice, warmup, threads, query);
        Run d = run("direct", direct, connections, threads, query);
        Run s = run("sluice", sluice, connections, threads, query);
        System.out.printf(Locale.ROOT, "short connections (connect, %s, quit): %d each way, %d client threads%n",
                query, connections, threads);
        for (Run r : List.of(d, s)) {
            System.out.printf(Locale.ROOT, "  %-7s %8.0f connections/s  (%.1f s, %d errors%s)%n", r.name(),
                    r.perSecond(), r.seconds(), r.errors(), r.firstError() == null ? "" : "; first: " + r.firstError());
        }
        System.out.printf(Locale.ROOT, "  ratio   %8.2f  (through Sluice / direct)%n", s.perSecond() / d.perSecond());
        if (d.errors() + s.errors() > 0) {
            System.exit(1);
        }
    }

    static Run run(String name, String url, int connections, int threads, String query) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicLong errors = new AtomicLong();
        List<String> firstError = new ArrayList<>(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
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
        return new Run(name, connections, seconds, errors.get(), firstError.isEmpty() ? null : firstError.get(0));
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
