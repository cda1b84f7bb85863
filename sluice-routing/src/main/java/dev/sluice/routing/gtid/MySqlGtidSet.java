package dev.sluice.routing.gtid;

import java.util.Arrays;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A MySQL GTID set: per source ({@code uuid}, or {@code uuid:tag} since MySQL 8.3) the ranges of
 * transaction numbers applied, as in {@code @@gtid_executed} or a session's {@code OWN_GTID}.
 *
 * <p>Unlike MariaDB, a MySQL replica may apply transactions out of order (parallel workers without
 * commit-order preservation), so containment is checked range by range, never by a high-water mark.
 */
public final class MySqlGtidSet implements GtidPosition {

    /** The set of a server that has applied nothing. */
    public static final MySqlGtidSet EMPTY = new MySqlGtidSet(Collections.emptySortedMap());

    private static final int UUID_LENGTH = 36;
    /** MySQL limits tags to 32 characters. */
    private static final int MAX_TAG_LENGTH = 32;

    /** Source key ({@code uuid} or {@code uuid:tag}, lower case) to its ranges, sorted for printing. */
    private final Map<String, SequenceIntervals> sources;

    private MySqlGtidSet(Map<String, SequenceIntervals> sources) {
        this.sources = sources;
    }

    /**
     * Parses {@code uuid[:tag]:n[-m][:n[-m]...][,...]}, tolerating whitespace and newlines around
     * elements. Empty text is {@link #EMPTY}; anything malformed is empty.
     */
    public static Optional<MySqlGtidSet> parse(CharSequence text) {
        TreeMap<String, SequenceIntervals> sources = new TreeMap<>();
        int end = GtidText.trimEnd(text, 0, text.length());
        int from = GtidText.trimStart(text, 0, end);
        if (from == end) {
            return Optional.of(EMPTY);
        }
        while (from <= end) {
            int comma = from;
            while (comma < end && text.charAt(comma) != ',') {
                comma++;
            }
            if (!parseElement(text, from, comma, sources)) {
                return Optional.empty();
            }
            from = comma + 1;
        }
        return Optional.of(new MySqlGtidSet(Collections.unmodifiableSortedMap(sources)));
    }

    /** One {@code uuid:...} element; adds its ranges to {@code sources}. */
    private static boolean parseElement(CharSequence text, int from, int to,
                                        TreeMap<String, SequenceIntervals> sources) {
        to = GtidText.trimEnd(text, from, to);
        from = GtidText.trimStart(text, from, to);
        if (to - from <= UUID_LENGTH || !isUuid(text, from) || text.charAt(from + UUID_LENGTH) != ':') {
            return false;
        }
        String uuid = text.subSequence(from, from + UUID_LENGTH).toString().toLowerCase(Locale.ROOT);
        String key = uuid;
        long[] pairs = new long[8];
        int pairCount = 0;
        int segment = from + UUID_LENGTH + 1;
        boolean expectInterval = false;
        boolean anyInterval = false;
        while (segment <= to) {
            int colon = segment;
            while (colon < to && text.charAt(colon) != ':') {
                colon++;
            }
            int segEnd = GtidText.trimEnd(text, segment, colon);
            int segStart = GtidText.trimStart(text, segment, segEnd);
            if (segStart == segEnd) {
                return false;
            }
            char first = text.charAt(segStart);
            if (isTagStart(first)) {
                if (expectInterval || segEnd - segStart > MAX_TAG_LENGTH || !isTag(text, segStart, segEnd)) {
                    return false;
                }
                addTo(sources, key, pairs, pairCount);
                pairCount = 0;
                key = uuid + ":" + text.subSequence(segStart, segEnd).toString().toLowerCase(Locale.ROOT);
                expectInterval = true;
            } else {
                int dash = segStart;
                while (dash < segEnd && text.charAt(dash) != '-') {
                    dash++;
                }
                long start = GtidText.parseNumber(text, segStart, dash, Long.MAX_VALUE);
                long stop = dash == segEnd ? start : GtidText.parseNumber(text, dash + 1, segEnd, Long.MAX_VALUE);
                if (start < 1 || stop < start) {
                    return false;
                }
                if (pairCount * 2 == pairs.length) {
                    pairs = Arrays.copyOf(pairs, pairs.length * 2);
                }
                pairs[2 * pairCount] = start;
                pairs[2 * pairCount + 1] = stop;
                pairCount++;
                expectInterval = false;
                anyInterval = true;
            }
            segment = colon + 1;
        }
        if (expectInterval || !anyInterval) {
            return false;
        }
        addTo(sources, key, pairs, pairCount);
        return true;
    }

    private static void addTo(TreeMap<String, SequenceIntervals> sources, String key, long[] pairs, int count) {
        if (count == 0) {
            return;
        }
        SequenceIntervals ranges = SequenceIntervals.of(pairs, count);
        sources.merge(key, ranges, SequenceIntervals::union);
    }

    private static boolean isTagStart(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isTag(CharSequence s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!isTagStart(c) && (c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    /** {@code 8-4-4-4-12} hexadecimal digits. */
    private static boolean isUuid(CharSequence s, int from) {
        for (int i = 0; i < UUID_LENGTH; i++) {
            char c = s.charAt(from + i);
            boolean dashPlace = i == 8 || i == 13 || i == 18 || i == 23;
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (dashPlace ? c != '-' : !hex) {
                return false;
            }
        }
        return true;
    }

    @Override
    public GtidFlavor flavor() {
        return GtidFlavor.MYSQL;
    }

    @Override
    public boolean isEmpty() {
        return sources.isEmpty();
    }

    @Override
    public boolean contains(GtidPosition required) {
        return missingCount(required) == 0;
    }

    @Override
    public long missingCount(GtidPosition required) {
        if (required.isEmpty()) {
            return 0;
        }
        if (!(required instanceof MySqlGtidSet other)) {
            return Long.MAX_VALUE;
        }
        long missing = 0;
        for (Map.Entry<String, SequenceIntervals> need : other.sources.entrySet()) {
            SequenceIntervals have = sources.getOrDefault(need.getKey(), SequenceIntervals.EMPTY);
            long gap = have.missing(need.getValue());
            missing = missing > Long.MAX_VALUE - gap ? Long.MAX_VALUE : missing + gap;
        }
        return missing;
    }

    @Override
    public GtidPosition merge(GtidPosition other) {
        if (other instanceof MySqlGtidSet set) {
            return merge(set);
        }
        return other;
    }

    /** The union of both sets. */
    public MySqlGtidSet merge(MySqlGtidSet other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        TreeMap<String, SequenceIntervals> union = new TreeMap<>(sources);
        other.sources.forEach((key, ranges) -> union.merge(key, ranges, SequenceIntervals::union));
        return new MySqlGtidSet(Collections.unmodifiableSortedMap(union));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MySqlGtidSet other && sources.equals(other.sources);
    }

    @Override
    public int hashCode() {
        return sources.hashCode();
    }

    /** The server's syntax, sources sorted: {@code uuid:1-5:7,uuid:tag:1-3}. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, SequenceIntervals> source : sources.entrySet()) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(source.getKey());
            source.getValue().appendTo(out);
        }
        return out.toString();
    }
}
