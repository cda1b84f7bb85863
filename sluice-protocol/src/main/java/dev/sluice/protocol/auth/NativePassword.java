package dev.sluice.protocol.auth;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code mysql_native_password}: the client answers a 20-byte seed with
 * {@code SHA1(pw) XOR SHA1(seed + SHA1(SHA1(pw)))}; the server stores only
 * {@code stage2 = SHA1(SHA1(pw))} (as {@code *HEX} in {@code mysql.user}).
 *
 * <p>The proxy authenticates without ever knowing the password, the way MaxScale does:
 * from the client's answer and the stored stage2 it {@linkplain #recoverStage1 recovers}
 * {@code stage1 = SHA1(pw)} (and checks it against stage2), then answers each backend's own
 * seed with {@link #scrambleWithStage1}. An empty password is an empty answer.
 *
 * @see <a href="https://mariadb.com/kb/en/connection/#mysql_native_password-plugin">MariaDB: mysql_native_password plugin</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase_authentication_methods_native_password_authentication.html">MySQL:
 *     native authentication</a>
 */
public final class NativePassword {
    public static final String PLUGIN_NAME = "mysql_native_password";
    /** SHA-1 length: size of seed, answer, stage1 and stage2. */
    public static final int HASH_SIZE = 20;
    private static final char HEX_MARKER = '*';

    private NativePassword() {}

    /** The client's answer to {@code seed}; empty for an empty password. */
    public static byte[] scramble(byte[] password, byte[] seed) {
        if (password.length == 0) {
            return new byte[0];
        }
        return scrambleWithStage1(Digests.sha1(password), seed);
    }

    /** {@code SHA1(pw)}. */
    public static byte[] stage1(byte[] password) {
        return Digests.sha1(password);
    }

    /** {@code SHA1(SHA1(pw))}, what the server stores; empty for an empty password. */
    public static byte[] stage2(byte[] password) {
        return password.length == 0 ? new byte[0] : Digests.sha1(Digests.sha1(password));
    }

    /**
     * The answer to {@code seed} computed from {@code stage1 = SHA1(pw)} alone; empty when
     * {@code stage1} is empty (an account without password).
     */
    public static byte[] scrambleWithStage1(byte[] stage1, byte[] seed) {
        if (stage1.length == 0) {
            return new byte[0];
        }
        requireHash(stage1, "stage1");
        return Digests.xor(stage1, Digests.sha1(seed, Digests.sha1(stage1)));
    }

    /**
     * Recovers {@code SHA1(pw)} from a client's answer and verifies it: present only when the
     * client knew the password whose stage2 is {@code stage2}. For an account without a
     * password (empty stage2) an empty answer is correct and recovers an empty stage1.
     */
    public static Optional<byte[]> recoverStage1(byte[] seed, byte[] clientResponse, byte[] stage2) {
        if (stage2.length == 0 || clientResponse.length == 0) {
            return stage2.length == 0 && clientResponse.length == 0 ? Optional.of(new byte[0]) : Optional.empty();
        }
        if (stage2.length != HASH_SIZE || clientResponse.length != HASH_SIZE) {
            return Optional.empty();
        }
        byte[] stage1 = Digests.xor(clientResponse, Digests.sha1(seed, stage2));
        return MessageDigest.isEqual(Digests.sha1(stage1), stage2) ? Optional.of(stage1) : Optional.empty();
    }

    /** True when {@code clientResponse} proves knowledge of the password behind {@code stage2}. */
    public static boolean verify(byte[] seed, byte[] clientResponse, byte[] stage2) {
        return recoverStage1(seed, clientResponse, stage2).isPresent();
    }

    /**
     * Parses an {@code authentication_string} / {@code Password} column: {@code *} followed by
     * 40 hex digits, or empty for an account without password.
     *
     * @throws IllegalArgumentException for anything else (another plugin's format)
     */
    public static byte[] parseStage2(String authenticationString) {
        if (authenticationString.isEmpty()) {
            return new byte[0];
        }
        if (authenticationString.length() != 1 + 2 * HASH_SIZE || authenticationString.charAt(0) != HEX_MARKER) {
            throw new IllegalArgumentException("not a mysql_native_password hash (expected '*' and 40 hex digits)");
        }
        try {
            return HexFormat.of().parseHex(authenticationString, 1, authenticationString.length());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a mysql_native_password hash: bad hex digit", e);
        }
    }

    /** The {@code *HEX} form of a stage2, as {@code PASSWORD('…')} prints it. */
    public static String formatStage2(byte[] stage2) {
        if (stage2.length == 0) {
            return "";
        }
        requireHash(stage2, "stage2");
        return HEX_MARKER + HexFormat.of().formatHex(stage2).toUpperCase(Locale.ROOT);
    }

    private static void requireHash(byte[] hash, String what) {
        if (hash.length != HASH_SIZE) {
            throw new IllegalArgumentException(what + " must be " + HASH_SIZE + " bytes: " + hash.length);
        }
    }
}
