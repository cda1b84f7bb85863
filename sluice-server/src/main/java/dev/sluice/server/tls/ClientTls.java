package dev.sluice.server.tls;

import dev.sluice.server.config.ConfigLoader;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Sluice needs to accept TLS from clients: the server-side context (TLS 1.2 and 1.3, the
 * JDK's implementation) and the certificate it presents, whose SHA-256 fingerprint is logged so
 * that an operator can tell clients what to pin.
 *
 * <p>Configured PEM files are read at start (a bad file stops the start). A self-signed pair is
 * loaded — or, the first time, made by {@code keytool}, which takes a few seconds — on a thread of
 * its own, so that Sluice starts listening at once; a client asking for TLS in the meantime waits
 * for it ({@link #ready()}).
 */
public final class ClientTls {
    private static final Logger LOG = LoggerFactory.getLogger(ClientTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    private static final String TEMP_DIRECTORY_PREFIX = "sluice-tls-";

    /** The context and the certificate it presents. */
    public record Material(SslContext context, X509Certificate certificate, Optional<Path> certificatePem) {
        public SslHandler newHandler(ByteBufAllocator alloc) {
            return context.newHandler(alloc);
        }
    }

    private final CompletableFuture<Material> material;

    private ClientTls(CompletableFuture<Material> material) {
        this.material = material;
    }

    /**
     * From the {@code tls:} section; empty when TLS toward clients is turned off.
     *
     * @param configDirectory the configuration file's directory: relative file names are taken from
     *     there, and the self-signed pair is kept in its {@code .sluice} unless {@code self-signed-dir} says
     *     otherwise; without one, in a per-user directory under the system's temporary directory
     */
    public static Optional<ClientTls> from(TlsConfig config, Optional<Path> configDirectory) {
        if (!config.enabled()) {
            LOG.info("TLS toward clients is off (tls.enabled: false): SSL requests are refused");
            return Optional.empty();
        }
        if (config.hasCertificate()) {
            return Optional.of(new ClientTls(CompletableFuture.completedFuture(fromPem(
                    ConfigLoader.resolve(configDirectory, config.cert().get()),
                    ConfigLoader.resolve(configDirectory, config.key().get())))));
        }
        Path dir = config.selfSignedDir().map(d -> ConfigLoader.resolve(configDirectory, d))
                .or(() -> configDirectory.map(d -> d.resolve(ConfigLoader.STATE_DIRECTORY)))
                .orElseGet(ClientTls::temporaryDirectory);
        CompletableFuture<Material> material = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                material.complete(selfSigned(dir));
            } catch (RuntimeException e) {
                LOG.error("TLS toward clients is unavailable: {}", e.getMessage());
                material.completeExceptionally(e);
            }
        }, "sluice-self-signed-certificate");
        t.setDaemon(true);
        t.start();
        return Optional.of(new ClientTls(material));
    }

    private static Material fromPem(Path cert, Path key) {
        try {
            X509Certificate first;
            try (InputStream in = Files.newInputStream(cert)) {
                first = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            }
            SslContext ctx = builder(SslContextBuilder.forServer(cert.toFile(), key.toFile())).build();
            LOG.info("TLS toward clients: certificate {} ({}), SHA-256 fingerprint {}", cert,
                    first.getSubjectX500Principal(), Fingerprint.sha256(first));
            return new Material(ctx, first, Optional.of(cert));
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("tls: cannot use certificate " + cert + " with key " + key + ": "
                    + e.getMessage() + " (both PEM; the key unencrypted PKCS#8, '-----BEGIN PRIVATE KEY-----')", e);
        }
    }

    private static Material selfSigned(Path dir) {
        SelfSignedCertificate pair = SelfSignedCertificate.loadOrCreate(dir);
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(pair.store(), SelfSignedCertificate.STORE_PASSWORD);
            SslContext ctx = builder(SslContextBuilder.forServer(kmf)).build();
            LOG.info("TLS toward clients: self-signed certificate {}, SHA-256 fingerprint {}", pair.certificatePem(),
                    Fingerprint.sha256(pair.certificate()));
            return new Material(ctx, pair.certificate(), Optional.of(pair.certificatePem()));
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

    /** Completes once the certificate is there (at once for configured files); fails if it cannot be. */
    public CompletableFuture<Material> ready() {
        return material;
    }

    private Material await() {
        try {
            return material.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** The certificate presented (waits for it). */
    public X509Certificate certificate() {
        return await().certificate();
    }

    public String fingerprint() {
        return Fingerprint.sha256(certificate());
    }

    /** The certificate as a PEM file, for clients that verify it (waits for it). */
    public Optional<Path> certificatePem() {
        return await().certificatePem();
    }
}
