package dev.sluice.server.digest;

import dev.sluice.routing.sql.Digest;
import dev.sluice.routing.sql.StatementDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The digests of one I/O thread (BEHAVIOUR §12), touched by that thread only, so recording takes
 * no lock. An open-addressing table keyed by a 64-bit hash of endpoint, account, schema, hints and
 * digest text; a hit is confirmed by comparing the key (the text byte for byte), so finding a
 * digest seen before allocates nothing.
 *
 * <p>At most {@code capacity} digests: when a new one finds the table full, the tenth with the
 * least total time is folded into its endpoint's "other" row first (sorting once per tenth keeps
 * the cost of a stream of new digests low), and what an evicted digest's running statements
 * record later goes there too.
 */
public final class LoopDigests {
    static final String OTHER_TEXT = "(other statements)";
    private static final int EVICT_DIVISOR = 10;
    private static final long MIX = 0x9E3779B97F4A7C15L;
    private static final int INITIAL_SCRATCH = 4096;
    /** Texts longer than this are digested from a one-off copy instead of growing the kept buffer. */
    private static final int MAX_SCRATCH = 1 << 20;

    private final int capacity;
    private DigestEntry[] slots;
    private int size;
    private int generation;
    private final Map<String, DigestEntry> others = new HashMap<>();
    private final StatementDigest digester = new StatementDigest();
    private byte[] scratch = new byte[INITIAL_SCRATCH];

    LoopDigests(int capacity) {
        this.capacity = capacity;
        this.slots = new DigestEntry[tableSize(capacity)];
    }

    /** The thread's digester, reused for every statement. */
    public StatementDigest digester() {
        return digester;
    }

    /** A buffer of at least {@code length} bytes to copy a statement's text into (direct buffers have no array). */
    public byte[] scratch(int length) {
        if (scratch.length >= length) {
            return scratch;
        }
        byte[] bigger = new byte[Math.max(length, scratch.length * 2)];
        if (bigger.length <= MAX_SCRATCH) {
            scratch = bigger;
        }
        return bigger;
    }

    /**
     * The entry for this digest and key, made if new; recorded into once the answer is complete.
     * Allocates nothing for a digest already in the table.
     */
    public DigestEntry find(Digest digest, String endpoint, String account, String schema) {
        long hash = keyHash(digest.hash(), endpoint, account, schema);
        int mask = slots.length - 1;
        for (int i = slot(hash, mask); slots[i] != null; i = (i + 1) & mask) {
            DigestEntry e = slots[i];
            if (e.hash == hash && e.matches(digest, endpoint, account, schema)) {
                return e;
            }
        }
        return add(new DigestEntry(hash, endpoint, account, schema, digest.hints(), digest.textBytes(),
                digest.text(), false, generation));
    }

    private DigestEntry add(DigestEntry e) {
        if (size >= capacity) {
            evictColdest();
        }
        insert(e);
        return e;
    }

    /** A statement of {@code e}'s digest was answered; allocates nothing. */
    public void record(DigestEntry e, long nanos, boolean error, long rows, boolean onPrimary, long nowMillis) {
        if (e.generation != generation) {
            return;
        }
        (e.evicted ? other(e.endpoint) : e).record(nanos, error, rows, onPrimary, nowMillis);
    }

    /** Forgets every digest (DELETE /v1/digests); statements running now are not counted. */
    void clear() {
        generation++;
        slots = new DigestEntry[slots.length];
        size = 0;
        others.clear();
    }

    List<DigestFigures> figures() {
        List<DigestFigures> all = new ArrayList<>(size + others.size());
        for (DigestEntry e : slots) {
            if (e != null && e.count > 0) {
                all.add(e.figures());
            }
        }
        for (DigestEntry o : others.values()) {
            all.add(o.figures());
        }
        return all;
    }

    int size() {
        return size;
    }

    private DigestEntry other(String endpoint) {
        return others.computeIfAbsent(endpoint, name -> new DigestEntry(0, name, "", "", 0, new byte[0],
                OTHER_TEXT, true, generation));
    }

    private void evictColdest() {
        DigestEntry[] live = Arrays.stream(slots).filter(e -> e != null).sorted(Comparator
                .comparingLong((DigestEntry e) -> e.totalNanos)).toArray(DigestEntry[]::new);
        int evict = Math.max(1, capacity / EVICT_DIVISOR);
        for (int i = 0; i < evict && i < live.length; i++) {
            live[i].evicted = true;
            other(live[i].endpoint).fold(live[i]);
        }
        Arrays.fill(slots, null);
        size = 0;
        for (int i = evict; i < live.length; i++) {
            insert(live[i]);
        }
    }

    private void insert(DigestEntry e) {
        int mask = slots.length - 1;
        int i = slot(e.hash, mask);
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = e;
        size++;
    }

    private static long keyHash(long digestHash, String endpoint, String account, String schema) {
        long h = digestHash;
        h = (h ^ endpoint.hashCode()) * MIX;
        h = (h ^ account.hashCode()) * MIX;
        return (h ^ schema.hashCode()) * MIX;
    }

    private static int slot(long hash, int mask) {
        return (int) (hash ^ (hash >>> 32)) & mask;
    }

    /** A power of two at least twice the capacity: probes stay short. */
    private static int tableSize(int capacity) {
        return Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
    }
}
