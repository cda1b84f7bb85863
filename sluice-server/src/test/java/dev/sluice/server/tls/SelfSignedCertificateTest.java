package dev.sluice.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.config.TlsConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SelfSignedCertificateTest {
    @TempDir
    Path dir;

    @Test
    void madeOnceThenReusedWithTheSameFingerprint() throws Exception {
        SelfSignedCertificate first = SelfSignedCertificate.loadOrCreate(dir.resolve("state"));
        SelfSignedCertificate again = SelfSignedCertificate.loadOrCreate(dir.resolve("state"));
        assertThat(Fingerprint.sha256(again.certificate())).isEqualTo(Fingerprint.sha256(first.certificate()));
        assertThat(Fingerprint.sha256(first.certificate())).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
        X509Certificate pem;
        try (var in = Files.newInputStream(first.certificatePem())) {
            pem = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        assertThat(pem).isEqualTo(first.certificate());
        assertThat(pem.getSubjectAlternativeNames()).extracting(l -> l.get(1).toString())
                .contains("localhost", "127.0.0.1");
        assertThat(Files.getPosixFilePermissions(dir.resolve("state")))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        try (var files = Files.list(dir.resolve("state"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(
                    SelfSignedCertificate.KEY_STORE_FILE, SelfSignedCertificate.CERTIFICATE_FILE);
        }
    }

    @Test
    void processesStartingTogetherAgreeOnOnePair() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Callable<String> start = () -> Fingerprint.sha256(
                    SelfSignedCertificate.loadOrCreate(dir.resolve("shared")).certificate());
            List<Future<String>> all = pool.invokeAll(List.of(start, start, start));
            assertThat(all.get(1).get()).isEqualTo(all.get(0).get());
            assertThat(all.get(2).get()).isEqualTo(all.get(0).get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void clientTlsUsesTheConfiguredDirectoryOrTheOneNextToTheConfigurationFile() {
        ClientTls explicit = ClientTls.from(new TlsConfig(true, Optional.empty(), Optional.empty(),
                Optional.of("keys")), Optional.of(dir)).orElseThrow();
        assertThat(explicit.certificatePem()).contains(dir.resolve("keys").resolve(SelfSignedCertificate.CERTIFICATE_FILE));
        ClientTls byDefault = ClientTls.from(TlsConfig.DEFAULT, Optional.of(dir)).orElseThrow();
        assertThat(byDefault.certificatePem()).contains(dir.resolve(".sluice")
                .resolve(SelfSignedCertificate.CERTIFICATE_FILE));
        assertThat(ClientTls.from(new TlsConfig(false, Optional.empty(), Optional.empty(), Optional.empty()),
                Optional.of(dir))).isEmpty();
    }

    @Test
    void configuredPemFilesAreUsedAsGiven() throws Exception {
        Path pemDir = dir.resolve("pem");
        Files.createDirectories(pemDir);
        Path key = pemDir.resolve("key.pem");
        Path cert = pemDir.resolve("cert.pem");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=configured", "-keyout", key.toString(), "-out", cert.toString())
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        org.junit.jupiter.api.Assumptions.assumeTrue(p.waitFor() == 0, "openssl is needed to make a PEM pair");
        ClientTls tls = ClientTls.from(new TlsConfig(true, Optional.of("pem/cert.pem"), Optional.of("pem/key.pem"),
                Optional.empty()), Optional.of(dir)).orElseThrow();
        assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=configured");
        assertThat(tls.fingerprint()).isEqualTo(Fingerprint.sha256(tls.certificate()));
    }
}
