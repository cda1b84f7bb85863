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
    /** Keeps the table at most half full, so probe chains stay short. */
    private static final int LOAD_FACTOR_INVERSE = 2;

    private final long[] hashes;
    private final byte[][] words;
    private final int[] values;
    private final int mask;

    private WordTable(List<String> keys, List<Integer> vals) {
        int capacity = Integer.highestOneBit(Math.max(keys.size(), 1) * LOAD_FACTOR_INVERSE) * 2;
        hashes = new long[capacity];
        words = new byte[capacity][];
        values = new int[capacity];
        mask = capacity - 1;
        for (int i = 0; i < keys.size(); i++) {
            byte[] word = keys.get(i).toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8);
            long hash = WordHash.of(word, 0, word.length);
            int slot = (int) (hash ^ (hash >>> 32)) & mask;
            while (words[slot] != null) {
                if (java.util.Arrays.equals(words[slot], word)) {
                    break;
                }
                slot = (slot + 1) & mask;
            }
            hashes[slot] = hash;
            words[slot] = word;
            values[slot] = vals.get(i);
        }
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
    int lookup(byte[] bytes, int from, int to, long hash) {
        int slot = (int) (hash ^ (hash >>> 32)) & mask;
        for (byte[] word = words[slot]; word != null; word = words[slot]) {
            if (hashes[slot] == hash && WordHash.equalsFolded(bytes, from, to, word)) {
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
