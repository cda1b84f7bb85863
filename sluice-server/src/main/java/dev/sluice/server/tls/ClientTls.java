package dev.sluice.server.tls;

import dev.sluice.server.config.TlsConfig;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Sluice needs to accept TLS from clients: the server-side context (TLS 1.2 and 1.3, the
 * JDK's implementation) and the certificate it presents, whose SHA-256 fingerprint is logged at
 * start so that an operator can tell clients what to pin.
 */
public final class ClientTls {
    private static final Logger LOG = LoggerFactory.getLogger(ClientTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    private static final String TEMP_DIRECTORY_PREFIX = "sluice-tls-";

    private final SslContext context;
    private final X509Certificate certificate;
    private final Optional<Path> certificatePem;

    private ClientTls(SslContext context, X509Certificate certificate, Optional<Path> certificatePem) {
        this.context = context;
        this.certificate = certificate;
        this.certificatePem = certificatePem;
    }

    /** From the {@code tls:} section; empty when TLS toward clients is turned off. */
    public static Optional<ClientTls> from(TlsConfig config) {
        if (!config.enabled()) {
            LOG.info("TLS toward clients is off (tls.enabled: false): SSL requests are refused");
            return Optional.empty();
        }
        ClientTls tls = config.hasCertificate() ? fromPem(Path.of(config.cert().get()), Path.of(config.key().get()))
                : selfSigned(config.selfSignedDir().map(Path::of).orElseGet(ClientTls::temporaryDirectory));
        return Optional.of(tls);
    }

    private static ClientTls fromPem(Path cert, Path key) {
        try {
            X509Certificate first;
            try (InputStream in = Files.newInputStream(cert)) {
                first = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            }
            SslContext ctx = builder(SslContextBuilder.forServer(cert.toFile(), key.toFile())).build();
            LOG.info("TLS toward clients: certificate {} ({}), SHA-256 fingerprint {}", cert,
                    first.getSubjectX500Principal(), Fingerprint.sha256(first));
            return new ClientTls(ctx, first, Optional.of(cert));
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("tls: cannot use certificate " + cert + " with key " + key + ": "
                    + e.getMessage() + " (both PEM; the key unencrypted PKCS#8, '-----BEGIN PRIVATE KEY-----')", e);
        }
    }

    private static ClientTls selfSigned(Path dir) {
        SelfSignedCertificate pair = SelfSignedCertificate.loadOrCreate(dir);
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(pair.store(), SelfSignedCertificate.STORE_PASSWORD);
            SslContext ctx = builder(SslContextBuilder.forServer(kmf)).build();
            LOG.info("TLS toward clients: self-signed certificate {}, SHA-256 fingerprint {}", pair.certificatePem(),
                    Fingerprint.sha256(pair.certificate()));
            return new ClientTls(ctx, pair.certificate(), Optional.of(pair.certificatePem()));
        } catch (GeneralSecurityException | SSLException e) {
            throw new IllegalStateException("cannot use the self-signed certificate in " + dir + ": " + e.getMessage(),
                    e);
        }
    }

    private static SslContextBuilder builder(SslContextBuilder b) {
        return b.sslProvider(SslProvider.JDK).protocols(PROTOCOLS);
    }

    /** Per user, so that one user's Sluice never reads a key another user made. */
    private static Path temporaryDirectory() {
        return Path.of(System.getProperty("java.io.tmpdir"), TEMP_DIRECTORY_PREFIX + System.getProperty("user.name"));
    }

    /** A new server-side handler for one client connection. */
    public SslHandler newHandler(ByteBufAllocator alloc) {
        return context.newHandler(alloc);
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public String fingerprint() {
        return Fingerprint.sha256(certificate);
    }

    /** The certificate as a PEM file, for clients that verify it. */
    public Optional<Path> certificatePem() {
        return certificatePem;
    }
}
