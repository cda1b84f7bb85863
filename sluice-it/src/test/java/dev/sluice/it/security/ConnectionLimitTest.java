package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import dev.sluice.protocol.response.ErrorCodes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code max-connections}: over it, a client gets ERR 1040 "Too many connections" (SQLSTATE 08004)
 * in place of the greeting and the connection is closed — 10,000 times in a row — while the
 * admitted sessions keep working.
 */
class ConnectionLimitTest {
    private static final int MAX = 4;
    private static final int ATTEMPTS = 10_000;
    private static final int CLIENT_THREADS = 16;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    // The bystander takes one of the MAX places.
    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write, max-connections: %d}
            """.formatted(MAX));

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(sluice.sluice().mariadbUrl("rw", "connectTimeout=30000&socketTimeout=60000"));
    }

    private static long serverId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@server_id + 0")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void tenThousandAttemptsOverTheLimitAreRefusedWhileTheAdmittedSessionsWork() throws Exception {
        List<Connection> admitted = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENT_THREADS);
        try {
            for (int i = 1; i < MAX; i++) {
                admitted.add(connect());
            }
            SQLException jdbc = catchThrowableOfType(SQLException.class, () -> connect().close());
            assertThat(jdbc.getErrorCode()).isEqualTo(ErrorCodes.ER_CON_COUNT_ERROR);
            assertThat(jdbc.getSQLState()).isEqualTo("08004");
            assertThat(jdbc.getMessage()).contains("Too many connections");

            Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
            AtomicInteger next = new AtomicInteger();
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < CLIENT_THREADS; t++) {
                workers.add(pool.submit(() -> {
                    while (next.getAndIncrement() < ATTEMPTS) {
                        outcomes.computeIfAbsent(attempt(), k -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                }));
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (workers.stream().anyMatch(f -> !f.isDone())) {
                // The admitted sessions are served all along.
                for (Connection c : admitted) {
                    assertThat(serverId(c)).isPositive();
                }
                assertThat(System.nanoTime()).as("10,000 attempts take less than 10 minutes").isLessThan(deadline);
                Thread.sleep(200);
            }
            for (Future<?> f : workers) {
                f.get();
            }
            assertThat(outcomes).containsOnlyKeys("1040 08004 Too many connections, then closed");
            assertThat(outcomes.values().iterator().next().get()).isEqualTo(ATTEMPTS);
            for (Connection c : admitted) {
                assertThat(serverId(c)).isPositive();
            }
            // A place freed is a place taken.
            admitted.remove(0).close();
            await().atMost(TIMEOUT).ignoreExceptions().until(() -> {
                admitted.add(connect());
                return true;
            });
        } finally {
            pool.shutdownNow();
            for (Connection c : admitted) {
                c.close();
            }
        }
    }

    /** One connection attempt over the limit; what happened, as text. */
    private static String attempt() {
        try (RawMysqlClient c = RawMysqlClient.open(sluice.port("rw"), TIMEOUT)) {
            RawPacket first = c.readPacket();
            if (!first.isErr()) {
                return "admitted (" + first + ")";
            }
            String what = first.err().errorCode() + " " + first.err().sqlState() + " " + first.err().message();
            if (first.sequenceId() != 0) {
                what += " with sequence id " + first.sequenceId();
            }
            return what + (c.awaitClosed() ? ", then closed" : ", left open");
        } catch (Exception e) {
            return e.toString();
        }
    }
}
