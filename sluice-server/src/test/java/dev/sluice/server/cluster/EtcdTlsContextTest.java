package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.EtcdTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificate files toward etcd that cannot be used stop the start, naming their key and file. */
class EtcdTlsContextTest {
    @TempDir
    Path dir;

    @Test
    void aMissingCaIsLookedForInTheConfigurationsDirectoryAndNamed() {
        assertThatThrownBy(() -> EtcdTlsContext.load(new EtcdTls("certs/ca.pem", Optional.empty(), Optional.empty()),
                Optional.of(dir))).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("cluster.tls.ca: cannot read " + dir.resolve("certs/ca.pem") + " (no such file)");
    }

    @Test
    void aCaFileWithoutACertificateIsRefused() throws Exception {
        Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");
        assertThatThrownBy(() -> EtcdTlsContext.load(new EtcdTls("ca.pem", Optional.empty(), Optional.empty()),
                Optional.of(dir))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cluster.tls.ca: " + dir.resolve("ca.pem") + " holds no PEM certificate");
    }

    @Test
    void aMissingClientKeyIsNamed() throws Exception {
        Files.writeString(dir.resolve("ca.pem"), "");
        Files.writeString(dir.resolve("client.pem"), "");
        assertThatThrownBy(() -> EtcdTlsContext.load(new EtcdTls("ca.pem", Optional.of("client.pem"),
                Optional.of("client-key.pem")), Optional.of(dir))).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("cluster.tls.key: cannot read " + dir.resolve("client-key.pem"));
    }
}
