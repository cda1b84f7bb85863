package dev.sluice.routing.sql;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An immutable open-addressing table from lower-case words to small ints, probed with the hash the
 * lexer already computed and confirmed byte by byte. Built once per word list; lookups allocate
 * nothing.
 */
final class WordTable {

    /** Returned by {@link #lookup} for words not in the table. */
    static final int ABSENT = -1;
    /** Keeps the table at most a quarter full, so a miss usually costs one probe. */
    private static final int LOAD_FACTOR_INVERSE = 4;
    /** Marks an empty slot in {@link #hashes}; a word whose hash is 0 is stored under {@link #ZERO_HASH_STAND_IN}. */
    private static final long EMPTY = 0L;
    private static final long ZERO_HASH_STAND_IN = 1L;
    private static final int CASE_BIT = 'a' - 'A';

    private final long[] hashes;
    private final byte[][] words;
    /** Per word, {@code 0x20} where it has a letter and 0 elsewhere: case folding without a branch. */
    private final byte[][] foldMasks;
    private final int[] values;
    private final int mask;
    /** Longer words cannot be in the table: no probe at all. */
    private final int maxLength;

    private WordTable(List<String> keys, List<Integer> vals) {
        int capacity = Integer.highestOneBit(Math.max(keys.size(), 1) * LOAD_FACTOR_INVERSE) * 2;
        hashes = new long[capacity];
        words = new byte[capacity][];
        foldMasks = new byte[capacity][];
        values = new int[capacity];
        mask = capacity - 1;
        int longest = 0;
        for (int i = 0; i < keys.size(); i++) {
            byte[] word = keys.get(i).toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8);
            long hash = stored(WordHash.of(word, 0, word.length));
            int slot = slotOf(hash);
            while (words[slot] != null) {
                if (java.util.Arrays.equals(words[slot], word)) {
                    break;
                }
                slot = (slot + 1) & mask;
            }
            hashes[slot] = hash;
            words[slot] = word;
            foldMasks[slot] = foldMask(word);
            values[slot] = vals.get(i);
            longest = Math.max(longest, word.length);
        }
        maxLength = longest;
    }

    private static byte[] foldMask(byte[] lowerWord) {
        byte[] mask = new byte[lowerWord.length];
        for (int i = 0; i < lowerWord.length; i++) {
            mask[i] = (byte) (lowerWord[i] >= 'a' && lowerWord[i] <= 'z' ? CASE_BIT : 0);
        }
        return mask;
    }

    /** {@code bytes[from, to)} equals the lower-case {@code word} up to ASCII case. */
    private static boolean sameWord(byte[] bytes, int from, int to, byte[] word, byte[] mask) {
        if (to - from != word.length) {
            return false;
        }
        int diff = 0;
        for (int i = 0; i < word.length; i++) {
            diff |= (bytes[from + i] | mask[i]) ^ word[i];
        }
        return diff == 0;
    }

    private static long stored(long hash) {
        return hash == EMPTY ? ZERO_HASH_STAND_IN : hash;
    }

    /** Fibonacci hashing: the multiply spreads FNV's bits over the slot index. */
    private int slotOf(long hash) {
        return (int) ((hash * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }

    static WordTable of(List<String> keys, List<Integer> vals) {
        return new WordTable(keys, vals);
    }

    /** A set (every value 0) read from a class-path resource: one word per line, {@code #} comments. */
    static WordTable loadSet(String resource) {
        List<String> words = new ArrayList<>();
        try (InputStream in = WordTable.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                String word = line.strip();
                if (!word.isEmpty() && !word.startsWith("#")) {
                    words.add(word);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Integer> zeros = new ArrayList<>(words.size());
        words.forEach(w -> zeros.add(0));
        return new WordTable(words, zeros);
    }

    /** The value of {@code bytes[from, to)} (whose folded hash is {@code hash}), or {@link #ABSENT}. */
    int lookup(byte[] bytes, int from, int to, long wordHash) {
        if (to - from > maxLength) {
            return ABSENT;
        }
        long hash = stored(wordHash);
        int slot = slotOf(hash);
        for (long h = hashes[slot]; h != EMPTY; h = hashes[slot]) {
            if (h == hash && sameWord(bytes, from, to, words[slot], foldMasks[slot])) {
                return values[slot];
            }
            slot = (slot + 1) & mask;
        }
        return ABSENT;
    }

    boolean contains(byte[] bytes, int from, int to, long hash) {
        return lookup(bytes, from, to, hash) != ABSENT;
    }

    /** Number of words. */
    int size() {
        int n = 0;
        for (byte[] word : words) {
            if (word != null) {
                n++;
            }
        }
        return n;
    }
}
