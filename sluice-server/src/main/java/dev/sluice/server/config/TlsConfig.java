package dev.sluice.server.config;

import java.util.Optional;

/**
 * TLS toward clients (the top-level {@code tls:} section). With no {@code cert}/{@code key}, Sluice
 * makes a self-signed pair at its first start, keeps it in {@code self-signed-dir} and reuses it.
 *
 * @param enabled whether Sluice offers TLS ({@code CLIENT_SSL}) in its greeting at all
 * @param cert PEM certificate (chain) file
 * @param key PEM private key (PKCS#8) of {@code cert}
 * @param selfSignedDir where the generated pair is kept; empty: {@code .sluice} next to the
 *     configuration file, or a per-user directory under the system's temporary directory when the
 *     configuration did not come from a file
 */
public record TlsConfig(boolean enabled, Optional<String> cert, Optional<String> key, Optional<String> selfSignedDir) {
    /** TLS offered with a generated certificate, kept where the defaults say. */
    public static final TlsConfig DEFAULT = new TlsConfig(true, Optional.empty(), Optional.empty(), Optional.empty());

    public boolean hasCertificate() {
        return cert.isPresent();
    }
}
