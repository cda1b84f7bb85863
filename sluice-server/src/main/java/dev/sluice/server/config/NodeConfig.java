package dev.sluice.server.config;

import java.util.Optional;

/** One database server of the cluster, as configured. */
public record NodeConfig(String name, HostPort address, Role role, Optional<String> zone, int capacity) {
    public enum Role { PRIMARY, REPLICA }
}
