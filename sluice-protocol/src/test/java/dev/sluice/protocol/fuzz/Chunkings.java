package dev.sluice.protocol.fuzz;

import java.util.SplittableRandom;
import java.util.stream.IntStream;

/** Ways to cut a byte stream into the reads a socket might deliver. */
final class Chunkings {
    private Chunkings() {
    }

    /** All of it at once. */
    static int[] whole(int length) {
        return new int[] {length};
    }

    /** Chunks of 1 to {@code maxChunk} bytes, reproducible from {@code seed}. */
    static int[] random(int length, long seed, int maxChunk) {
        SplittableRandom random = new SplittableRandom(seed);
        IntStream.Builder chunks = IntStream.builder();
        for (int left = length; left > 0; ) {
            int chunk = Math.min(left, 1 + random.nextInt(maxChunk));
            chunks.add(chunk);
            left -= chunk;
        }
        return chunks.build().toArray();
    }
}
