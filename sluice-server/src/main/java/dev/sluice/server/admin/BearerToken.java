package dev.sluice.server.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The {@code admin.token} rule: when a token is configured, a change needs
 * {@code Authorization: Bearer <token>}. Both sides are hashed before the constant-time comparison
 * so that neither the content nor the length of the token can be learned from response timing.
 */
final class BearerToken {
    private static final String SCHEME = "Bearer ";
    private final byte[] expectedDigest;

    BearerToken(String token) {
        this.expectedDigest = token == null || token.isEmpty() ? null : sha256(token);
    }

    /** No token configured: every request is admitted (keep the admin address on loopback then). */
    boolean isOpen() {
        return expectedDigest == null;
    }

    /** Whether the {@code Authorization} header value (null when absent) carries the token. */
    boolean admits(String authorization) {
        if (expectedDigest == null) {
            return true;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        return MessageDigest.isEqual(expectedDigest, sha256(authorization.substring(SCHEME.length()).trim()));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
