package dev.sluice.server.digest;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The query digests of the whole proxy (BEHAVIOUR §12): one {@link LoopDigests} per I/O thread,
 * so that the statement path never takes a lock, summed when the admin API asks. Reading and
 * clearing run as tasks on each I/O thread, which is the only one that touches its digests.
 *
 * <p>Memory: at most {@link #MAX_DIGESTS} digests per I/O thread, about 0.7 KB each with their
 * latency buckets; a report keeps the top {@link #MAX_DIGESTS} of the sum and folds the rest into
 * each endpoint's "other" row.
 *
 * <p>With {@code query-digests: false} the store is not collecting: sessions count no statement in
 * it, and the admin API says so rather than showing an empty table.
 */
public final class DigestStore {
    public static final int MAX_DIGESTS = 5_000;
    private static final long THREAD_WAIT_SECONDS = 5;

    private final int capacity;
    private final boolean collecting;
    private final ConcurrentMap<EventExecutor, LoopDigests> loops = new ConcurrentHashMap<>();

    public DigestStore() {
        this(true);
    }

    public DigestStore(boolean collecting) {
        this(MAX_DIGESTS, collecting);
    }

    DigestStore(int capacity) {
        this(capacity, true);
    }

    private DigestStore(int capacity, boolean collecting) {
        this.capacity = capacity;
        this.collecting = collecting;
    }

    /** Whether sessions count their statements here ({@code query-digests}, fixed for the process's life). */
    public boolean collecting() {
        return collecting;
    }

    /** The digests of the I/O thread {@code loop}; only that thread may use them. */
    public LoopDigests forLoop(EventExecutor loop) {
        LoopDigests d = loops.get(loop);
        return d != null ? d : loops.computeIfAbsent(loop, l -> new LoopDigests(capacity));
    }

    /**
     * The top {@code limit} digests in {@code order}, of one endpoint or of all; each endpoint's
     * digests past the top {@link #MAX_DIGESTS} in its "other" row.
     */
    public List<DigestSummary> top(Optional<String> endpoint, DigestOrder order, int limit) {
        Map<DigestFigures.Key, DigestFigures> sum = new LinkedHashMap<>();
        for (List<DigestFigures> loopFigures : onEveryLoop(LoopDigests::figures)) {
            for (DigestFigures f : loopFigures) {
                if (endpoint.isEmpty() || endpoint.get().equals(f.key().endpoint())) {
                    sum.merge(f.key(), f, DigestFigures::plus);
                }
            }
        }
        List<DigestFigures> rows = new ArrayList<>(sum.values());
        rows.sort(DigestOrder.TOTAL.comparator());
        Map<DigestFigures.Key, DigestFigures> kept = new LinkedHashMap<>();
        int digests = 0;
        for (DigestFigures f : rows) {
            DigestFigures.Key key = f.key();
            if (!key.other() && digests++ >= capacity) {
                key = otherKey(key.endpoint());
                f = f.as(key);
            }
            kept.merge(key, f, DigestFigures::plus);
        }
        return kept.values().stream().sorted(order.comparator()).limit(Math.max(0, limit))
                .map(DigestSummary::of).toList();
    }

    /** Forgets every digest on every I/O thread. */
    public void clear() {
        onEveryLoop(d -> {
            d.clear();
            return null;
        });
    }

    private static DigestFigures.Key otherKey(String endpoint) {
        return new DigestFigures.Key(endpoint, "", "", "", LoopDigests.OTHER_TEXT, true);
    }

    private interface LoopTask<T> {
        T run(LoopDigests digests);
    }

    private <T> List<T> onEveryLoop(LoopTask<T> task) {
        List<T> results = new ArrayList<>();
        for (Map.Entry<EventExecutor, LoopDigests> e : loops.entrySet()) {
            EventExecutor loop = e.getKey();
            LoopDigests digests = e.getValue();
            Callable<T> call = () -> task.run(digests);
            try {
                results.add(loop.inEventLoop() ? call.call() : loop.submit(call).get(THREAD_WAIT_SECONDS,
                        TimeUnit.SECONDS));
            } catch (RejectedExecutionException shutDown) {
                loops.remove(loop, digests);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading the query digests", interrupted);
            } catch (ExecutionException | TimeoutException | RuntimeException failed) {
                throw new IllegalStateException("an I/O thread did not hand over its query digests: " + failed,
                        failed);
            } catch (Exception unexpected) {
                throw new IllegalStateException(unexpected);
            }
        }
        return results;
    }
}
