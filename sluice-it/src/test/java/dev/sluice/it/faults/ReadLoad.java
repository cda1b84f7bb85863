package dev.sluice.it.faults;

import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Sessions reading through Sluice without pause, each on its own connection: {@code SELECT
 * @@server_id} in a loop, counting answers per session and per node and keeping every error. A
 * session whose count stops growing is stuck. A session that gets an error reconnects and goes
 * on, so that one error does not hide later ones.
 */
final class ReadLoad implements AutoCloseable {
    /** A safety net: no read may hang the test for ever; a read this slow shows up as an error. */
    private static final int SOCKET_TIMEOUT_MS = 30_000;

    private final String url;
    private final Map<Long, String> nodeByServerId;
    private final AtomicLongArray answered;
    private final Map<String, LongAdder> perNode = new ConcurrentHashMap<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stop;

    private ReadLoad(SluiceHarness sluice, String endpoint, int sessions) {
        this.url = sluice.mariadbUrl(endpoint, "socketTimeout=" + SOCKET_TIMEOUT_MS);
        this.nodeByServerId = sluice.cluster().nodes().stream()
                .collect(Collectors.toMap(n -> (long) n.serverId(), SandboxNode::name));
        this.answered = new AtomicLongArray(sessions);
        for (int i = 0; i < sessions; i++) {
            int index = i;
            Thread t = new Thread(() -> run(index), "read-load-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    static ReadLoad start(SluiceHarness sluice, String endpoint, int sessions) {
        ReadLoad load = new ReadLoad(sluice, endpoint, sessions);
        load.threads.forEach(Thread::start);
        return load;
    }

    private void run(int index) {
        while (!stop) {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                while (!stop) {
                    try (ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                        rs.next();
                        String node = nodeByServerId.getOrDefault(rs.getLong(1), "server_id " + rs.getLong(1));
                        perNode.computeIfAbsent(node, k -> new LongAdder()).increment();
                    }
                    answered.incrementAndGet(index);
                }
            } catch (SQLException | RuntimeException e) {
                if (!stop) {
                    errors.add("session " + index + " after " + answered.get(index) + " reads: " + e);
                }
            }
        }
    }

    /** Reads answered so far, per session. */
    long[] answeredPerSession() {
        long[] out = new long[answered.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = answered.get(i);
        }
        return out;
    }

    /** Whether every session answered at least {@code more} reads since {@code before}. */
    boolean everySessionAnsweredSince(long[] before, int more) {
        for (int i = 0; i < before.length; i++) {
            if (answered.get(i) < before[i] + more) {
                return false;
            }
        }
        return true;
    }

    long answeredBy(String node) {
        LongAdder a = perNode.get(node);
        return a == null ? 0 : a.sum();
    }

    List<String> errors() {
        return List.copyOf(errors);
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(SOCKET_TIMEOUT_MS);
        }
    }
}
