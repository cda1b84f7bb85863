package dev.sluice.protocol.auth;

import java.security.MessageDigest;

/**
 * {@code caching_sha2_password} (MySQL 8's default): the fast path answers a 20-byte nonce
 * with {@code XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)) + nonce))}. The server replies with
 * AuthMoreData {@link #FAST_AUTH_SUCCESS} when it has the account cached, or
 * {@link #PERFORM_FULL_AUTHENTICATION}, after which the client sends the password over TLS
 * (NUL-terminated), or asks for the server's RSA key with {@link #REQUEST_PUBLIC_KEY}.
 *
 * <p>Unlike native passwords, what the server stores (a salted SHA-256 crypt) is not enough
 * to log in to a backend, so the proxy needs the plain password for these accounts.
 *
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_caching_sha2_authentication_exchanges.html">MySQL:
 *     caching_sha2_password information exchange</a>
 * @see <a href="https://mariadb.com/kb/en/authentication-plugin-sha-256/">MariaDB: caching_sha2_password (client side)</a>
 */
public final class CachingSha2Password {
    public static final String PLUGIN_NAME = "caching_sha2_password";
    /** Client to server: send me your RSA public key. */
    public static final int REQUEST_PUBLIC_KEY = 0x02;
    /** Server to client, after AuthMoreData's 0x01: the scramble matched the cache. */
    public static final int FAST_AUTH_SUCCESS = 0x03;
    /** Server to client, after AuthMoreData's 0x01: send the full password. */
    public static final int PERFORM_FULL_AUTHENTICATION = 0x04;
    public static final int HASH_SIZE = 32;

    private CachingSha2Password() {}

    /** The fast-path answer to {@code nonce}; empty for an empty password. */
    public static byte[] scramble(byte[] password, byte[] nonce) {
        if (password.length == 0) {
            return new byte[0];
        }
        byte[] stage1 = Digests.sha256(password);
        byte[] stage2 = Digests.sha256(stage1);
        return Digests.xor(stage1, Digests.sha256(stage2, nonce));
    }

    /** {@code SHA256(SHA256(pw))}, what the server's cache holds for a fast check. */
    public static byte[] doubleHash(byte[] password) {
        return Digests.sha256(Digests.sha256(password));
    }

    /**
     * Checks a fast-path answer against {@code SHA256(SHA256(pw))}, as the server's cache
     * does. An empty answer is right only for an empty password (empty {@code doubleHash}).
     */
    public static boolean verify(byte[] nonce, byte[] clientResponse, byte[] doubleHash) {
        if (clientResponse.length == 0 || doubleHash.length == 0) {
            return clientResponse.length == 0 && doubleHash.length == 0;
        }
        if (clientResponse.length != HASH_SIZE || doubleHash.length != HASH_SIZE) {
            return false;
        }
        byte[] stage1 = Digests.xor(clientResponse, Digests.sha256(doubleHash, nonce));
        return MessageDigest.isEqual(Digests.sha256(stage1), doubleHash);
    }

    /** Checks a fast-path answer against a known plain password. */
    public static boolean verifyPassword(byte[] nonce, byte[] clientResponse, byte[] password) {
        return verify(nonce, clientResponse, password.length == 0 ? new byte[0] : doubleHash(password));
    }
}
