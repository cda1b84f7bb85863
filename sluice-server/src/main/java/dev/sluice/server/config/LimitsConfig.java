package dev.sluice.server.config;

import java.time.Duration;

/**
 * Protective limits. Defaults are safe for a shared proxy: a client has 10 s to log in, may sit
 * idle for 8 h (the server's own wait_timeout default), may send packets up to 1 GiB
 * (MariaDB's maximum max_allowed_packet), and a session holds at most 4 MiB of buffered packets
 * (see {@link #sessionMemory}); ten failed logins from one address within a minute block that
 * address for a minute.
 *
 * @param sessionMemory bytes a session may hold: client packets read but not yet passed on, and
 *     answers not yet written to the client (see docs/SECURITY.md)
 */
public record LimitsConfig(Duration handshakeTimeout, Duration idleTimeout, long maxPacketSize,
        Duration backendConnectTimeout, int ioThreads, long sessionMemory, LoginFailureLimit loginFailures) {
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofHours(8);
    public static final long DEFAULT_MAX_PACKET_SIZE = 1L << 30;
    public static final Duration DEFAULT_BACKEND_CONNECT_TIMEOUT = Duration.ofSeconds(3);
    public static final long DEFAULT_SESSION_MEMORY = 4L << 20;
    /** Below this a session could not hold one ordinary result batch. */
    public static final long MIN_SESSION_MEMORY = 64L << 10;

    /** Limits with the default session memory bound and login-failure limit. */
    public LimitsConfig(Duration handshakeTimeout, Duration idleTimeout, long maxPacketSize,
            Duration backendConnectTimeout, int ioThreads) {
        this(handshakeTimeout, idleTimeout, maxPacketSize, backendConnectTimeout, ioThreads, DEFAULT_SESSION_MEMORY,
                LoginFailureLimit.DEFAULT);
    }
}
