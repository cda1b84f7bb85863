package dev.sluice.server.digest;

import dev.sluice.routing.sql.Digest;
import dev.sluice.routing.sql.StatementDigest;
import java.util.Arrays;

/**
 * A digest kept beyond the statement it was computed for: a prepared statement's, computed once
 * and used by each of its EXECUTEs (BEHAVIOUR §12). Its bytes are never changed once made.
 */
public record DigestKey(long hash, int hints, byte[] textBytes, String text) implements Digest {

    public static DigestKey of(StatementDigest digest) {
        return new DigestKey(digest.hash(), digest.hints(), digest.textBytes(), digest.text());
    }

    @Override
    public boolean textEquals(byte[] other) {
        return Arrays.equals(textBytes, other);
    }
}
