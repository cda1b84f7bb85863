package dev.sluice.server.pool;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What backends answered to session commands ({@code SET …}), by the state the connection was
 * in when it ran them. The same command from the same state gets the same OK, so a session that
 * has no backend connection yet can be answered at once, and its SET reaches a connection later
 * with the rest of its state — or never needs to, when a pooled connection already carries it.
 * Nearly every driver opens each connection with the same SET; for short connections through a
 * pool (BEHAVIOUR §7) that saves a round trip to the primary, and the primary connection with it.
 *
 * <p>An answer is forgotten after {@link #MAX_AGE}, so that a change of a global variable the SET
 * reads ({@code SET sql_mode = CONCAT(@@sql_mode, …)}) shows in its answers within that time.
 * One per event loop, like the pool it belongs to: no locking.
 */
public final class SetAnswers {
    static final Duration MAX_AGE = Duration.ofSeconds(10);
    static final int MAX_ENTRIES = 256;

    private record Key(PoolKey pool, String stateTag, String sql) {
    }

    private record Answer(byte[] okPayload, long learnedNanos) {
    }

    private final LongSupplier nanoClock;
    private final Map<Key, Answer> answers = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Answer> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    public SetAnswers() {
        this(System::nanoTime);
    }

    SetAnswers(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** The OK payload a backend gave {@code sql} from state {@code stateTag}, if known and recent. */
    public Optional<byte[]> answer(PoolKey pool, String stateTag, String sql) {
        Key key = new Key(pool, stateTag, sql);
        Answer a = answers.get(key);
        if (a == null) {
            return Optional.empty();
        }
        if (nanoClock.getAsLong() - a.learnedNanos() > MAX_AGE.toNanos()) {
            answers.remove(key);
            return Optional.empty();
        }
        return Optional.of(a.okPayload());
    }

    /** A backend in state {@code stateTag} answered {@code sql} with this OK payload (header byte first). */
    public void learn(PoolKey pool, String stateTag, String sql, byte[] okPayload) {
        answers.put(new Key(pool, stateTag, sql), new Answer(okPayload.clone(), nanoClock.getAsLong()));
    }

    int size() {
        return answers.size();
    }
}
