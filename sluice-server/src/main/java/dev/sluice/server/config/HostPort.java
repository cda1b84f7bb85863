package dev.sluice.server.config;

/** A TCP address as written in the configuration. */
public record HostPort(String host, int port) {
    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
