package dev.sluice.it.cluster;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients that read in a loop through one URL and, when their connection is lost, reconnect — as
 * an application's pool does — counting what happened to each: answers since a moment of the
 * test's choosing, connections lost (before or after it), and errors on a connection that stayed
 * up, which a client must never see.
 */
final class ReconnectingReaders implements AutoCloseable {
    private static final Duration RECONNECT_PAUSE = Duration.ofMillis(50);
    private static final int KEPT_ERRORS = 5;
    private static final int VALID_CHECK_SECONDS = 2;

    /** What the clients saw. */
    record Tally(int errorsOnLiveConnections, int failedConnects, int lostBeforeKill, int lostAfterKill,
            int clientsLosingTwice, List<String> firstErrors) {
    }

    private final String url;
    private final List<Reader> readers = new ArrayList<>();
    private final Queue<String> errors = new ConcurrentLinkedQueue<>();
    private final AtomicInteger errorsOnLive = new AtomicInteger();
    private final AtomicInteger failedConnects = new AtomicInteger();
    private volatile boolean killed;
    private volatile boolean running = true;

    private ReconnectingReaders(String url) {
        this.url = url;
    }

    static ReconnectingReaders start(String url, int clients) {
        ReconnectingReaders r = new ReconnectingReaders(url);
        for (int i = 0; i < clients; i++) {
            Reader reader = r.new Reader(i);
            r.readers.add(reader);
            reader.thread.start();
        }
        return r;
    }

    /** From now on, a lost connection counts as the kill's. */
    void markKill() {
        killed = true;
    }

    /** Answers count from now on. */
    void countAnswersFromNow() {
        for (Reader r : readers) {
            r.answersSinceMark.set(0);
        }
    }

    /** Waits until every client has had {@code answers} answers since they were last counted from (or the start). */
    void awaitAnswersEach(int answers, Duration timeout) {
        await("every client answered " + answers + " times").atMost(timeout).pollInterval(Duration.ofMillis(50))
                .until(() -> readers.stream().allMatch(r -> r.answersSinceMark.get() >= answers));
    }

    Tally tally() {
        int before = readers.stream().mapToInt(r -> r.lostBeforeKill.get()).sum();
        int after = readers.stream().mapToInt(r -> r.lostAfterKill.get()).sum();
        int twice = (int) readers.stream().filter(r -> r.lostAfterKill.get() > 1).count();
        return new Tally(errorsOnLive.get(), failedConnects.get(), before, after, twice, List.copyOf(errors));
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Reader r : readers) {
            r.thread.join(Duration.ofSeconds(30).toMillis());
        }
    }

    private void keep(String error) {
        if (errors.size() < KEPT_ERRORS) {
            errors.add(error);
        }
    }

    private final class Reader {
        final Thread thread;
        final AtomicInteger answersSinceMark = new AtomicInteger();
        final AtomicInteger lostBeforeKill = new AtomicInteger();
        final AtomicInteger lostAfterKill = new AtomicInteger();

        Reader(int n) {
            thread = new Thread(this::run, "reader-" + n);
            thread.setDaemon(true);
        }

        private void run() {
            Connection c = null;
            while (running) {
                try {
                    if (c == null) {
                        c = DriverManager.getConnection(url);
                    }
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                        rs.next();
                    }
                    answersSinceMark.incrementAndGet();
                } catch (SQLException e) {
                    c = lost(c, e);
                }
            }
            closeQuietly(c);
        }

        /** A failed connect or a lost connection is a reconnect; an error on a live connection is counted. */
        private Connection lost(Connection c, SQLException e) {
            if (c != null && isValid(c)) {
                errorsOnLive.incrementAndGet();
                keep(thread.getName() + " on a live connection: " + e.getErrorCode() + " " + e.getMessage());
                return c;
            }
            if (c == null) {
                failedConnects.incrementAndGet();
                keep(thread.getName() + " could not connect: " + e.getMessage());
            } else {
                (killed ? lostAfterKill : lostBeforeKill).incrementAndGet();
                keep(thread.getName() + " lost its connection" + (killed ? " after" : " before") + " the kill: "
                        + e.getMessage());
                closeQuietly(c);
            }
            try {
                Thread.sleep(RECONNECT_PAUSE.toMillis());
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                running = false;
            }
            return null;
        }

        private boolean isValid(Connection c) {
            try {
                return c.isValid(VALID_CHECK_SECONDS);
            } catch (SQLException e) {
                return false;
            }
        }

        private void closeQuietly(Connection c) {
            if (c == null) {
                return;
            }
            try {
                c.close();
            } catch (SQLException ignored) {
                // Already gone: nothing to close.
            }
        }
    }
}
