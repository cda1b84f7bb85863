package dev.sluice.it.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A well-behaved session that runs alongside a misbehaving one: one JDBC connection through
 * Sluice doing {@code SELECT <n>} in a loop, checking every answer. Whatever another client does
 * to Sluice, this one must never see an error, a wrong answer, or a stall.
 */
public final class Bystander implements AutoCloseable {
    private static final Duration PROGRESS_TIMEOUT = Duration.ofSeconds(20);

    private final String url;
    private final Thread thread;
    private final AtomicLong answered = new AtomicLong();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private volatile boolean stop;

    private Bystander(String url) {
        this.url = url;
        this.thread = new Thread(this::run, "bystander");
        this.thread.setDaemon(true);
    }

    /** Starts the loop on a JDBC URL (through Sluice) and waits for its first answer. */
    public static Bystander start(String jdbcUrl) {
        Bystander b = new Bystander(jdbcUrl);
        b.thread.start();
        b.assertProgressing();
        return b;
    }

    private void run() {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            long n = 0;
            while (!stop) {
                n++;
                try (ResultSet rs = s.executeQuery("SELECT " + n)) {
                    if (!rs.next() || rs.getLong(1) != n) {
                        problems.add("SELECT " + n + " gave a wrong answer");
                    }
                }
                answered.incrementAndGet();
            }
        } catch (SQLException | RuntimeException e) {
            if (!stop) {
                problems.add("bystander failed after " + answered.get() + " queries: " + e);
            }
        }
    }

    /** Asserts no error so far, and that a few more queries are answered from now on. */
    public void assertProgressing() {
        long from = answered.get();
        await("the bystander session goes on answering").atMost(PROGRESS_TIMEOUT).pollInterval(Duration.ofMillis(20))
                .until(() -> !problems.isEmpty() || answered.get() >= from + 3);
        assertThat(problems).as("errors seen by a well-behaved session running alongside").isEmpty();
    }

    public long answered() {
        return answered.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(PROGRESS_TIMEOUT.toMillis());
        assertThat(problems).as("errors seen by a well-behaved session running alongside").isEmpty();
    }
}
