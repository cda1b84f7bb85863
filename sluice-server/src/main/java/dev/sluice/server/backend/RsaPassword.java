package dev.sluice.server.backend;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import javax.crypto.Cipher;

/**
 * {@code caching_sha2_password}'s full authentication on a link without TLS: the password with a
 * trailing NUL, XORed with the login nonce (repeated), encrypted with the server's RSA public key
 * and OAEP padding (SHA-1, MGF1) — what MySQL 8.0.5+ servers expect.
 *
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_caching_sha2_authentication_exchanges.html">MySQL:
 *     caching_sha2_password information exchange</a>
 */
final class RsaPassword {
    static final String TRANSFORMATION = "RSA/ECB/OAEPWithSHA-1AndMGF1Padding";
    private static final String PEM_BEGIN = "-----BEGIN PUBLIC KEY-----";
    private static final String PEM_END = "-----END PUBLIC KEY-----";

    private RsaPassword() {
    }

    /** The key of a PEM {@code PUBLIC KEY} block (X.509 SubjectPublicKeyInfo), as MySQL sends it. */
    static PublicKey publicKey(byte[] pem) throws GeneralSecurityException {
        String text = new String(pem, StandardCharsets.US_ASCII).trim();
        int begin = text.indexOf(PEM_BEGIN);
        int end = text.indexOf(PEM_END);
        if (begin < 0 || end < begin) {
            throw new GeneralSecurityException("not a PEM public key ('" + PEM_BEGIN + "')");
        }
        String body = text.substring(begin + PEM_BEGIN.length(), end).replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(body)));
    }

    static byte[] encrypt(byte[] password, byte[] nonce, PublicKey key) throws GeneralSecurityException {
        byte[] plain = new byte[password.length + 1];
        for (int i = 0; i < plain.length; i++) {
            byte b = i < password.length ? password[i] : 0;
            plain[i] = (byte) (b ^ nonce[i % nonce.length]);
        }
        Cipher cipher = Cipher.getInstance(TRANSFORMATION);
        cipher.init(Cipher.ENCRYPT_MODE, key);
        return cipher.doFinal(plain);
    }
}
