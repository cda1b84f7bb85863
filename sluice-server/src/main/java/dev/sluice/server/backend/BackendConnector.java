package dev.sluice.server.backend;

import dev.sluice.server.config.HostPort;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

/**
 * Opens logged-in connections to backend servers: over TCP in production
 * ({@link TcpBackendConnector}); the session core's unit tests give sessions backends of their own
 * making.
 */
public interface BackendConnector {
    /** Connects to {@code address} and logs in with {@code request}; the future completes on {@code loop}. */
    Future<BackendConnection> connect(EventLoop loop, String nodeName, int nodeId, HostPort address,
            LoginRequest request);
}
