package dev.sluice.server.runtime;

/**
 * How Sluice presents itself to clients: as the primary does (its version string, so that
 * drivers switch on the right dialect and features; its capabilities and default collation).
 */
public record ServerIdentity(String serverVersion, long capabilities, int collation) {
    /** Until the primary has been reached once. */
    public static final ServerIdentity FALLBACK = new ServerIdentity("5.5.5-10.11.0-MariaDB-sluice",
            0xFFFF_F7FFL & ~(1L << 5), 45);
}
