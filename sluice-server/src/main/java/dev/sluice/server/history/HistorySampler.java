package dev.sluice.server.history;

import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a sample into a {@link RecentHistory} every step, on a thread of its own: a reading asks
 * each I/O thread for its pools' use and waits for the answer, which no I/O thread may do, and
 * which must not hold up the admin server either. The statement path is not involved: everything
 * is read from counters Sluice keeps anyway.
 */
public final class HistorySampler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HistorySampler.class);
    private static final long CLOSE_WAIT_SECONDS = 2;

    private final RecentHistory history;
    private final Supplier<Readings> read;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-history");
        t.setDaemon(true);
        return t;
    });
    private Optional<Readings> previous = Optional.empty();
    private boolean failing;

    public HistorySampler(RecentHistory history, Supplier<Readings> read) {
        this.history = history;
        this.read = read;
    }

    /** Takes the first sample now, then one every step of the history. */
    public void start() {
        long step = history.step().toMillis();
        thread.scheduleAtFixedRate(this::sample, 0, step, TimeUnit.MILLISECONDS);
    }

    private void sample() {
        try {
            Readings now = read.get();
            history.record(now.epochSeconds(), HistoryStep.values(previous, now));
            previous = Optional.of(now);
            if (failing) {
                LOG.info("the dashboard's history is sampled again");
                failing = false;
            }
        } catch (RuntimeException e) {
            // A missed sample is a gap in the charts; a thrown exception would end the sampling for good.
            if (!failing) {
                LOG.warn("cannot sample the dashboard's history (a gap in its charts): {}", e.toString());
                failing = true;
            }
        }
    }

    /** Until {@link #close()} has stopped the thread. */
    boolean sampling() {
        return !thread.isTerminated();
    }

    /** Stops sampling; a sample being taken is interrupted (a pool reading waits at most a second). */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
