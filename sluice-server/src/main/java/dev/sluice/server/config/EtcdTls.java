package dev.sluice.server.config;

import java.util.Optional;

/**
 * TLS toward etcd ({@code cluster.tls}, BEHAVIOUR §11): file names as written in the
 * configuration; relative ones are taken from the configuration file's directory when the
 * instance starts, as for {@code tls:} toward clients.
 *
 * @param ca the CA certificate (PEM) that etcd's certificate must be signed by
 * @param cert this instance's client certificate (PEM), for an etcd started with {@code --client-cert-auth}
 * @param key the private key of {@code cert} (PEM, unencrypted PKCS#8); present exactly when {@code cert} is
 */
public record EtcdTls(String ca, Optional<String> cert, Optional<String> key) {
    public EtcdTls {
        if (cert.isPresent() != key.isPresent()) {
            throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
        }
    }

    public boolean hasClientCertificate() {
        return cert.isPresent();
    }
}
