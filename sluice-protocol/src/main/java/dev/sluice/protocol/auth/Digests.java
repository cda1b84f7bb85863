package dev.sluice.protocol.auth;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA digests and XOR, the building blocks of the scramble plugins. */
final class Digests {
    private Digests() {}

    static byte[] sha1(byte[]... parts) {
        return digest("SHA-1", parts);
    }

    static byte[] sha256(byte[]... parts) {
        return digest("SHA-256", parts);
    }

    static byte[] xor(byte[] a, byte[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("xor of " + a.length + " and " + b.length + " bytes");
        }
        byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = (byte) (a[i] ^ b[i]);
        }
        return out;
    }

    private static byte[] digest(String algorithm, byte[]... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance(algorithm);
            for (byte[] part : parts) {
                md.update(part);
            }
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is required by every Java runtime", e);
        }
    }
}
