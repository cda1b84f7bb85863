package dev.sluice.server.config;

import dev.sluice.server.net.HostPort;

/** The admin HTTP API and dashboard; an empty token means changes need no token. */
public record AdminConfig(HostPort listen, Secret token) {
    public AdminConfig(HostPort listen, String token) {
        this(listen, Secret.literal(token));
    }
}
