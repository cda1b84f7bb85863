package dev.sluice.routing.sql;

/**
 * A two-bit Bloom fingerprint of a table name in a 64-bit word. A statement ORs the fingerprints of
 * the tables it names; a session checks its temporary tables against that without any String.
 */
public final class TableFingerprint {

    private static final int BITS_PER_INDEX = 6;
    private static final int INDEX_MASK = (1 << BITS_PER_INDEX) - 1;

    private TableFingerprint() {
    }

    /** Fingerprint of a name (ASCII case folded), written in UTF-8. */
    public static long of(String tableName) {
        return ofHash(WordHash.of(tableName));
    }

    /**
     * Fingerprint of a name as a client writing in {@code charset} writes it: what a statement
     * naming that table, classified in that character set, ORs into its own fingerprint.
     */
    public static long of(String tableName, ClientCharset charset) {
        byte[] bytes = charset.encode(tableName);
        return ofHash(WordHash.of(bytes, 0, bytes.length));
    }

    static long ofHash(long wordHash) {
        // FNV's high bits are weak for short words: mix once (MurmurHash3 finaliser) first.
        long hash = (wordHash ^ (wordHash >>> 33)) * 0xff51afd7ed558ccdL;
        hash = (hash ^ (hash >>> 33)) * 0xc4ceb9fe1a85ec53L;
        int first = (int) (hash >>> (Long.SIZE - BITS_PER_INDEX)) & INDEX_MASK;
        int second = (int) (hash >>> (Long.SIZE - 2 * BITS_PER_INDEX)) & INDEX_MASK;
        return (1L << first) | (1L << second);
    }
}
