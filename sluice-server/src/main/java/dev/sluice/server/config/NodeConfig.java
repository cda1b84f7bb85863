package dev.sluice.server.config;

import dev.sluice.server.net.HostPort;
import dev.sluice.server.net.NodeTls;
import java.util.Optional;

/**
 * One database server of the cluster, as configured.
 *
 * @param tls whether Sluice's connections to it use TLS
 * @param tlsCa PEM file of the CA that signed its certificate: given, the certificate is verified
 *     (chain and host name); absent, it is accepted unverified (encryption without authentication)
 */
public record NodeConfig(String name, HostPort address, Role role, Optional<String> zone, int capacity, NodeTls tls,
        Optional<String> tlsCa) {
    public enum Role { PRIMARY, REPLICA }

    /** A node with the TLS defaults: {@code preferred}, no CA. */
    public NodeConfig(String name, HostPort address, Role role, Optional<String> zone, int capacity) {
        this(name, address, role, zone, capacity, NodeTls.PREFERRED, Optional.empty());
    }
}
