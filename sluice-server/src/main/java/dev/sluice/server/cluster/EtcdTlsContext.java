package dev.sluice.server.cluster;

import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.EtcdTls;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * The TLS context toward etcd, from {@code cluster.tls} (BEHAVIOUR §11): etcd's certificate is
 * checked against {@code ca} only, and {@code cert}/{@code key} are presented when etcd asks for a
 * client certificate. Built once at start; a file that cannot be read stops the start, naming its key.
 *
 * <p>The JDK's TLS implementation, so that {@link EtcdHandshake} can check a connection with
 * exactly the same certificates jetcd's gRPC channel uses ({@link #checker()}).
 */
final class EtcdTlsContext {
    private static final String KEY_FORMAT = "PEM; the key unencrypted PKCS#8, '-----BEGIN PRIVATE KEY-----'";

    private final SslContext grpc;
    private final EtcdTls tls;
    private final Path ca;

    private EtcdTlsContext(SslContext grpc, EtcdTls tls, Path ca) {
        this.grpc = grpc;
        this.tls = tls;
        this.ca = ca;
    }

    /** @param configDirectory where relative file names are taken from (the configuration file's directory) */
    static EtcdTlsContext load(EtcdTls tls, Optional<Path> configDirectory) {
        Path ca = readable("cluster.tls.ca", ConfigLoader.resolve(configDirectory, tls.ca()));
        Optional<Path> cert = tls.cert()
                .map(c -> readable("cluster.tls.cert", ConfigLoader.resolve(configDirectory, c)));
        Optional<Path> key = tls.key()
                .map(k -> readable("cluster.tls.key", ConfigLoader.resolve(configDirectory, k)));
        SslContextBuilder b = GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK);
        try {
            b.trustManager(ca.toFile());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("cluster.tls.ca: " + ca + " holds no PEM certificate; give the CA certificate "
                    + "that signed etcd's certificate", e);
        }
        if (cert.isPresent() && key.isPresent()) {
            try {
                b.keyManager(cert.get().toFile(), key.get().toFile());
            } catch (IllegalArgumentException e) {
                throw new ConfigException("cluster.tls: cannot use certificate " + cert.get() + " with key "
                        + key.get() + ": " + e.getMessage() + " (" + KEY_FORMAT + ")", e);
            }
        }
        try {
            return new EtcdTlsContext(b.build(), tls, ca);
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException("cluster.tls: cannot make a TLS context from " + ca
                    + tls.cert().map(c -> ", " + c).orElse("") + ": " + e.getMessage() + " (" + KEY_FORMAT + ")", e);
        }
    }

    private static Path readable(String key, Path file) {
        if (!Files.isReadable(file)) {
            throw new ConfigException(key + ": cannot read " + file + (Files.exists(file) ? " (permissions)"
                    : " (no such file)") + "; give a PEM file, absolute or relative to the configuration file's "
                    + "directory");
        }
        return file;
    }

    /** What jetcd's channel is built with. */
    SslContext grpc() {
        return grpc;
    }

    /**
     * The same certificates, for a plain TLS connection that tells why etcd refuses them (built with
     * {@link SslProvider#JDK}, so the context is always a JDK one).
     */
    EtcdHandshake checker() {
        return new EtcdHandshake(((JdkSslContext) grpc).context(), tls, ca);
    }
}
