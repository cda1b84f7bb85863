package dev.sluice.routing.sql;

/**
 * The classifier without the catch-all of {@link SqlClassifier#classify(byte[], int, int)}, which
 * turns any exception into a quiet route to the primary: correct for production, but it would
 * hide a classifier bug from a fuzzer. Here the bug shows as the exception it is.
 */
public final class UnguardedClassifier {
    private UnguardedClassifier() {
    }

    /** Classifies {@code utf8[offset, offset + length)} with a fresh scanner; exceptions pass through. */
    public static Statement classify(byte[] utf8, int offset, int length) {
        return SqlClassifier.classifyWithNewScanner(utf8, offset, length);
    }
}
