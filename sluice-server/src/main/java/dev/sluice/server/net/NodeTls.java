package dev.sluice.server.net;

import java.util.Locale;

/** Whether Sluice's connections to a node use TLS ({@code tls:} of a node). */
public enum NodeTls {
    /** TLS or no connection: a node that does not offer it is refused. */
    REQUIRED,
    /** TLS when the node offers it ({@code CLIENT_SSL} in its greeting), plain TCP otherwise. */
    PREFERRED,
    /** Never TLS. */
    OFF;

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
