package dev.sluice.server.auth;

import java.util.Locale;
import java.util.Optional;

/**
 * One row of the primary's account table, as far as logging in goes.
 *
 * @param user account name
 * @param hostPattern the account's host part ({@code %}, {@code 127.0.0.1}, {@code 10.%}, {@code localhost} …)
 * @param plugin authentication plugin
 * @param nativeStage2 SHA1(SHA1(password)) for {@code mysql_native_password} accounts; empty
 *     array for an account without a password
 * @param requiresTls the account was created with {@code REQUIRE SSL} (or X509, ISSUER, SUBJECT,
 *     CIPHER): its clients must connect with TLS
 */
public record Account(String user, String hostPattern, String plugin, Optional<byte[]> nativeStage2,
        boolean requiresTls) {

    /** An account with no TLS requirement. */
    public Account(String user, String hostPattern, String plugin, Optional<byte[]> nativeStage2) {
        this(user, hostPattern, plugin, nativeStage2, false);
    }

    /** Whether {@code mysql.user.ssl_type} ({@code '' | ANY | X509 | SPECIFIED}) asks for TLS. */
    public static boolean requiresTls(String sslType) {
        return sslType != null && !sslType.isBlank();
    }

    /** Whether this account's host part admits a client at {@code clientHost} (an IP literal). */
    public boolean admits(String clientHost) {
        String p = hostPattern.toLowerCase(Locale.ROOT);
        if (p.equals("%") || p.isEmpty()) {
            return true;
        }
        if (p.equals("localhost")) {
            return isLoopback(clientHost);
        }
        if (p.contains("/")) {
            return NetMask.parse(p).map(m -> m.contains(clientHost)).orElse(false);
        }
        return likeMatch(p, clientHost.toLowerCase(Locale.ROOT), 0, 0)
                || (isLoopback(clientHost) && (p.equals("127.0.0.1") || p.equals("::1")));
    }

    /** More specific host patterns first, as the server sorts them: literal, then wildcards, then {@code %}. */
    public int specificity() {
        if (hostPattern.equals("%") || hostPattern.isEmpty()) {
            return 0;
        }
        return hostPattern.contains("%") || hostPattern.contains("_") ? 1 : 2;
    }

    private static boolean isLoopback(String host) {
        return host.startsWith("127.") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1");
    }

    /** SQL LIKE with {@code %} and {@code _}, the syntax of account host parts. */
    private static boolean likeMatch(String p, String s, int pi, int si) {
        while (pi < p.length()) {
            char c = p.charAt(pi);
            if (c == '%') {
                for (int k = si; k <= s.length(); k++) {
                    if (likeMatch(p, s, pi + 1, k)) {
                        return true;
                    }
                }
                return false;
            }
            if (si >= s.length() || (c != '_' && c != s.charAt(si))) {
                return false;
            }
            pi++;
            si++;
        }
        return si == s.length();
    }
}
