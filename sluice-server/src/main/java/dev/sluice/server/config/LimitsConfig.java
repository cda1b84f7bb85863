package dev.sluice.server.config;

import java.time.Duration;

/**
 * Protective limits. Defaults are safe for a shared proxy: a client has 10 s to log in, may sit
 * idle for 8 h (the server's own wait_timeout default), and may send packets up to 1 GiB
 * (MariaDB's maximum max_allowed_packet).
 */
public record LimitsConfig(Duration handshakeTimeout, Duration idleTimeout, long maxPacketSize,
        Duration backendConnectTimeout, int ioThreads) {
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofHours(8);
    public static final long DEFAULT_MAX_PACKET_SIZE = 1L << 30;
    public static final Duration DEFAULT_BACKEND_CONNECT_TIMEOUT = Duration.ofSeconds(3);
}
