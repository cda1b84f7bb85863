package dev.sluice.routing.sql;

import java.nio.charset.StandardCharsets;

/**
 * 64-bit FNV-1a over a word's bytes with ASCII letters folded to lower case. The lexer computes it
 * while it scans a word, so finding a keyword, a built-in function or a table fingerprint costs a
 * table probe rather than a String.
 */
final class WordHash {

    static final long SEED = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;
    private static final int CASE_BIT = 'a' - 'A';

    private WordHash() {
    }

    static long step(long hash, int b) {
        int folded = b >= 'A' && b <= 'Z' ? b + CASE_BIT : b & 0xFF;
        return (hash ^ folded) * PRIME;
    }

    static long of(byte[] bytes, int from, int to) {
        long hash = SEED;
        for (int i = from; i < to; i++) {
            hash = step(hash, bytes[i]);
        }
        return hash;
    }

    static long of(String word) {
        byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
        return of(bytes, 0, bytes.length);
    }

    /** Lower-case ASCII comparison of {@code bytes[from, to)} with a lower-case word. */
    static boolean equalsFolded(byte[] bytes, int from, int to, byte[] lowerWord) {
        if (to - from != lowerWord.length) {
            return false;
        }
        for (int i = 0; i < lowerWord.length; i++) {
            int b = bytes[from + i];
            int folded = b >= 'A' && b <= 'Z' ? b + CASE_BIT : b;
            if (folded != lowerWord[i]) {
                return false;
            }
        }
        return true;
    }
}
