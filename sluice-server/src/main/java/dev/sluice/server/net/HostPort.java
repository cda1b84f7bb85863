package dev.sluice.server.net;

/**
 * A TCP address: a node's, or one Sluice listens on. Its own value type, so that the code that
 * connects and listens does not depend on the configuration file's model.
 */
public record HostPort(String host, int port) {

    /**
     * {@code host:port} or {@code [v6]:port}; port 0 means any free port.
     *
     * @throws IllegalArgumentException naming what is wrong with {@code text}
     */
    public static HostPort parse(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not an address; write host:port, e.g. 127.0.0.1:3306");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' has no numeric port; write host:port");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535 (0: any free port)");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
