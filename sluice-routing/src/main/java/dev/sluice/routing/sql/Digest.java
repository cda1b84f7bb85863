package dev.sluice.routing.sql;

/**
 * What identifies a statement's digest in the digest table (BEHAVIOUR §12): its hash, its hints and
 * its text. Either the reusable {@link StatementDigest} of the statement being run, or a copy kept
 * for a prepared statement's EXECUTEs; the table looks both up the same way.
 */
public interface Digest {

    /** A 64-bit hash of the text and the hints: equal digests have equal hashes. */
    long hash();

    /** {@link StatementDigest#FORCE_MASTER}, {@link StatementDigest#FORCE_SLAVE}, {@link StatementDigest#CONSISTENT_WITH} bits. */
    int hints();

    /** Whether the digest text is exactly {@code other}'s bytes; allocates nothing. */
    boolean textEquals(byte[] other);

    /** The digest text's bytes, safe to keep (a copy where the digest's own buffer is reused). */
    byte[] textBytes();

    /** The digest text, read in the statement's character set. */
    String text();
}
