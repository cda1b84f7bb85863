package dev.sluice.routing.gtid;

/** Small lexical helpers shared by both GTID parsers; no exceptions, no regular expressions. */
final class GtidText {

    /** Marks a number that did not parse (digits are never negative, so no real value collides). */
    static final long NOT_A_NUMBER = -1L;

    private GtidText() {
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    }

    /** Start index of {@code s[from, to)} after leading whitespace. */
    static int trimStart(CharSequence s, int from, int to) {
        while (from < to && isSpace(s.charAt(from))) {
            from++;
        }
        return from;
    }

    /** End index of {@code s[from, to)} before trailing whitespace. */
    static int trimEnd(CharSequence s, int from, int to) {
        while (to > from && isSpace(s.charAt(to - 1))) {
            to--;
        }
        return to;
    }

    /**
     * Parses decimal digits in {@code s[from, to)} into a value no larger than {@code max}
     * (at most {@link Long#MAX_VALUE}). Returns {@link #NOT_A_NUMBER} for anything else,
     * including overflow: sequence numbers past 2^63 never occur in practice, and refusing them
     * keeps every comparison signed and simple.
     */
    static long parseNumber(CharSequence s, int from, int to, long max) {
        if (from >= to) {
            return NOT_A_NUMBER;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return NOT_A_NUMBER;
            }
            int digit = c - '0';
            if (value > (max - digit) / 10) {
                return NOT_A_NUMBER;
            }
            value = value * 10 + digit;
        }
        return value;
    }
}
