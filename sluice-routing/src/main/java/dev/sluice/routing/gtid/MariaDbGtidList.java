package dev.sluice.routing.gtid;

import java.util.Arrays;
import java.util.Optional;

/**
 * A MariaDB GTID position: one {@code domain-server-sequence} triple per replication domain, as in
 * {@code @@gtid_current_pos}, {@code @@gtid_slave_pos} or a session's {@code last_gtid}.
 *
 * <p>Within a domain, sequence numbers grow monotonically, so "has applied" means "has the domain
 * with a sequence at least as high"; the server id is carried for printing but plays no part in
 * comparisons (this is what {@code MASTER_GTID_WAIT} checks too). Entries are kept sorted by domain.
 */
public final class MariaDbGtidList implements GtidPosition {

    /** The position of a server that has applied nothing. */
    public static final MariaDbGtidList EMPTY = new MariaDbGtidList(new long[0], new long[0], new long[0]);

    /** Domain and server ids are unsigned 32-bit integers. */
    private static final long MAX_ID = 0xFFFF_FFFFL;

    private final long[] domains;
    private final long[] servers;
    private final long[] sequences;

    private MariaDbGtidList(long[] domains, long[] servers, long[] sequences) {
        this.domains = domains;
        this.servers = servers;
        this.sequences = sequences;
    }

    /** A single GTID, e.g. the {@code last_gtid} a MariaDB primary reports after a commit. */
    public static MariaDbGtidList of(long domain, long server, long sequence) {
        if (domain < 0 || domain > MAX_ID || server < 0 || server > MAX_ID || sequence < 0) {
            throw new IllegalArgumentException("not a MariaDB GTID: " + domain + "-" + server + "-" + sequence);
        }
        return new MariaDbGtidList(new long[] {domain}, new long[] {server}, new long[] {sequence});
    }

    /**
     * Parses {@code d-s-n[,d-s-n]...}, tolerating whitespace around elements. A domain listed twice
     * keeps its highest sequence. Empty text is {@link #EMPTY}; anything else malformed is empty.
     */
    public static Optional<MariaDbGtidList> parse(CharSequence text) {
        int end = GtidText.trimEnd(text, 0, text.length());
        int start = GtidText.trimStart(text, 0, end);
        if (start == end) {
            return Optional.of(EMPTY);
        }
        MariaDbGtidList result = EMPTY;
        int from = start;
        while (from <= end) {
            int comma = indexOf(text, ',', from, end);
            int elementEnd = comma < 0 ? end : comma;
            Optional<MariaDbGtidList> one = parseOne(text, from, elementEnd);
            if (one.isEmpty()) {
                return Optional.empty();
            }
            result = result.merge(one.get());
            if (comma < 0) {
                break;
            }
            from = comma + 1;
        }
        return Optional.of(result);
    }

    private static Optional<MariaDbGtidList> parseOne(CharSequence text, int from, int to) {
        to = GtidText.trimEnd(text, from, to);
        from = GtidText.trimStart(text, from, to);
        int firstDash = indexOf(text, '-', from, to);
        int secondDash = firstDash < 0 ? -1 : indexOf(text, '-', firstDash + 1, to);
        if (secondDash < 0) {
            return Optional.empty();
        }
        long domain = GtidText.parseNumber(text, from, firstDash, MAX_ID);
        long server = GtidText.parseNumber(text, firstDash + 1, secondDash, MAX_ID);
        long sequence = GtidText.parseNumber(text, secondDash + 1, to, Long.MAX_VALUE);
        if (domain == GtidText.NOT_A_NUMBER || server == GtidText.NOT_A_NUMBER
                || sequence == GtidText.NOT_A_NUMBER) {
            return Optional.empty();
        }
        return Optional.of(of(domain, server, sequence));
    }

    private static int indexOf(CharSequence text, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public GtidFlavor flavor() {
        return GtidFlavor.MARIADB;
    }

    @Override
    public boolean isEmpty() {
        return domains.length == 0;
    }

    /** Number of replication domains listed. */
    public int domainCount() {
        return domains.length;
    }

    /** The highest sequence applied in {@code domain}, or -1 when the domain is unknown here. */
    public long sequenceOf(long domain) {
        int i = Arrays.binarySearch(domains, domain);
        return i < 0 ? -1 : sequences[i];
    }

    @Override
    public boolean contains(GtidPosition required) {
        if (required.isEmpty()) {
            return true;
        }
        if (!(required instanceof MariaDbGtidList other)) {
            return false;
        }
        for (int i = 0; i < other.domains.length; i++) {
            if (sequenceOf(other.domains[i]) < other.sequences[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public long missingCount(GtidPosition required) {
        if (required.isEmpty()) {
            return 0;
        }
        if (!(required instanceof MariaDbGtidList other)) {
            return Long.MAX_VALUE;
        }
        long missing = 0;
        for (int i = 0; i < other.domains.length; i++) {
            long have = Math.max(sequenceOf(other.domains[i]), 0);
            long gap = other.sequences[i] - have;
            if (gap > 0) {
                missing = missing > Long.MAX_VALUE - gap ? Long.MAX_VALUE : missing + gap;
            }
        }
        return missing;
    }

    @Override
    public GtidPosition merge(GtidPosition other) {
        if (other instanceof MariaDbGtidList list) {
            return merge(list);
        }
        return other;
    }

    /** Per domain, the higher sequence (with its server id) of the two. */
    public MariaDbGtidList merge(MariaDbGtidList other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        int capacity = domains.length + other.domains.length;
        long[] d = new long[capacity];
        long[] s = new long[capacity];
        long[] n = new long[capacity];
        int i = 0;
        int j = 0;
        int k = 0;
        while (i < domains.length || j < other.domains.length) {
            boolean takeMine = j >= other.domains.length
                    || (i < domains.length && domains[i] < other.domains[j]);
            boolean takeTheirs = i >= domains.length
                    || (j < other.domains.length && other.domains[j] < domains[i]);
            if (takeMine) {
                d[k] = domains[i];
                s[k] = servers[i];
                n[k++] = sequences[i++];
            } else if (takeTheirs) {
                d[k] = other.domains[j];
                s[k] = other.servers[j];
                n[k++] = other.sequences[j++];
            } else {
                boolean mineHigher = sequences[i] >= other.sequences[j];
                d[k] = domains[i];
                s[k] = mineHigher ? servers[i] : other.servers[j];
                n[k++] = mineHigher ? sequences[i] : other.sequences[j];
                i++;
                j++;
            }
        }
        return new MariaDbGtidList(Arrays.copyOf(d, k), Arrays.copyOf(s, k), Arrays.copyOf(n, k));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MariaDbGtidList other
                && Arrays.equals(domains, other.domains)
                && Arrays.equals(servers, other.servers)
                && Arrays.equals(sequences, other.sequences);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(domains) + Arrays.hashCode(servers)) + Arrays.hashCode(sequences);
    }

    /** The server's syntax, domains ascending: {@code 0-1-42,1-2-7}. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(domains.length * 16);
        for (int i = 0; i < domains.length; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(domains[i]).append('-').append(servers[i]).append('-').append(sequences[i]);
        }
        return out.toString();
    }
}
