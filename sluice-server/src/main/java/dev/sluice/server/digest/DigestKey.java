package dev.sluice.server.digest;

import dev.sluice.routing.sql.StatementDigest;

/**
 * A digest kept beyond the statement it was computed for: a prepared statement's, computed once
 * and used by each of its EXECUTEs (BEHAVIOUR §12).
 */
public record DigestKey(long hash, int hints, byte[] text, String textString) {

    public static DigestKey of(StatementDigest digest) {
        return new DigestKey(digest.hash(), digest.hints(), digest.textBytes(), digest.text());
    }
}
