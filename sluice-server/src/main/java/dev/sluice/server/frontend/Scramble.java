package dev.sluice.server.frontend;

import java.security.SecureRandom;

/** The challenge of the greeting, which the client's password answer is checked against. */
final class Scramble {
    private static final int LENGTH = 20;
    /** Scramble bytes are printable ASCII, without NUL (it ends the field) or '$'. */
    private static final int MIN = 0x21;
    private static final int RANGE = 0x7E - MIN;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Scramble() {
    }

    /** A new scramble, one per client connection. */
    static byte[] fresh() {
        byte[] s = new byte[LENGTH];
        for (int i = 0; i < s.length; i++) {
            s[i] = (byte) (MIN + RANDOM.nextInt(RANGE));
        }
        return s;
    }
}
