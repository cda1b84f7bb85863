package dev.sluice.server.tls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;

/** The SHA-256 fingerprint of a certificate, as {@code openssl x509 -fingerprint -sha256} prints it. */
public final class Fingerprint {
    private Fingerprint() {
    }

    public static String sha256(X509Certificate certificate) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot fingerprint " + certificate.getSubjectX500Principal(), e);
        }
    }
}
