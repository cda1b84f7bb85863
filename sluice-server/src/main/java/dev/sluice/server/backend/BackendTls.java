package dev.sluice.server.backend;

import dev.sluice.server.net.NodeTls;
import io.netty.handler.ssl.SslContext;
import java.util.Optional;

/**
 * How Sluice's connections to one node use TLS.
 *
 * @param mode required, preferred (when the node offers it) or off
 * @param context the client-side context; present unless {@code mode} is off
 * @param verified whether the context verifies the node's certificate (a CA was configured)
 */
public record BackendTls(NodeTls mode, Optional<SslContext> context, boolean verified) {
    public static final BackendTls OFF = new BackendTls(NodeTls.OFF, Optional.empty(), false);

    public BackendTls {
        if (mode != NodeTls.OFF && context.isEmpty()) {
            throw new IllegalArgumentException("TLS " + mode.configName() + " needs a context");
        }
    }
}
