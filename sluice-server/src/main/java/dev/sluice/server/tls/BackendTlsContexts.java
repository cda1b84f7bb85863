package dev.sluice.server.tls;

import dev.sluice.server.backend.BackendTls;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.net.NodeTls;
import dev.sluice.server.config.SluiceConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS settings of each node, as the backend connector asks for them at every connect: read from
 * the current configuration (nodes come and go through the admin API), with one client context per
 * distinct CA file, built once. A node with a {@code tls-ca} has its certificate verified — chain
 * and host name; a node without one is trusted unverified, which the log says once per node.
 */
public final class BackendTlsContexts implements Function<String, BackendTls> {
    private static final Logger LOG = LoggerFactory.getLogger(BackendTlsContexts.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    private static final String NO_CA = "";

    private final Supplier<SluiceConfig> config;
    private final Optional<Path> configDirectory;
    private final Map<String, SslContext> contexts = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** @param configDirectory where relative {@code tls-ca} file names are taken from */
    public BackendTlsContexts(Supplier<SluiceConfig> config, Optional<Path> configDirectory) {
        this.config = config;
        this.configDirectory = configDirectory;
    }

    @Override
    public BackendTls apply(String nodeName) {
        Optional<NodeConfig> node = config.get().node(nodeName);
        // Sluice's own connections to a node not (or no longer) in the configuration: the default.
        NodeTls mode = node.map(NodeConfig::tls).orElse(NodeTls.PREFERRED);
        if (mode == NodeTls.OFF) {
            return BackendTls.OFF;
        }
        Optional<String> ca = node.flatMap(NodeConfig::tlsCa)
                .map(f -> ConfigLoader.resolve(configDirectory, f).toAbsolutePath().toString());
        if (ca.isEmpty() && warned.add(nodeName)) {
            LOG.warn("node '{}': TLS ({}) without verifying its certificate (no tls-ca): the link is encrypted but "
                    + "not authenticated", nodeName, mode.configName());
        }
        return new BackendTls(mode, Optional.of(contexts.computeIfAbsent(ca.orElse(NO_CA), BackendTlsContexts::build)),
                ca.isPresent());
    }

    private static SslContext build(String caFile) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(PROTOCOLS);
            if (caFile.equals(NO_CA)) {
                b.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
            } else {
                b.trustManager(Path.of(caFile).toFile()).endpointIdentificationAlgorithm("HTTPS");
            }
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot use tls-ca " + caFile + ": " + e.getMessage(), e);
        }
    }
}
