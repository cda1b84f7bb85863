package dev.sluice.protocol.auth;

import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * The 20-byte seed (auth-plugin-data, "scramble") a server sends in its greeting or in an auth
 * switch. Sharp edge: the seed travels NUL-terminated in part 2 of the greeting, so it must not
 * contain NUL; servers also avoid {@code '$'}, which the SHA-256 crypt format reserves. This
 * generator uses printable ASCII without {@code '$'}, as MySQL's {@code generate_user_salt} does.
 *
 * @see <a href="https://mariadb.com/kb/en/connection/#initial-handshake-packet">MariaDB: initial handshake packet</a>
 */
public final class Seed {
    public static final int LENGTH = 20;
    private static final int FIRST_PRINTABLE = 0x21;
    private static final int LAST_PRINTABLE = 0x7E;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Seed() {}

    /** A fresh seed from a shared {@link SecureRandom}. */
    public static byte[] generate() {
        return generate(RANDOM);
    }

    /** A fresh seed from {@code random} (pass a seeded generator for reproducible tests). */
    public static byte[] generate(RandomGenerator random) {
        byte[] seed = new byte[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            int b;
            do {
                b = random.nextInt(FIRST_PRINTABLE, LAST_PRINTABLE + 1);
            } while (b == '$');
            seed[i] = (byte) b;
        }
        return seed;
    }
}
