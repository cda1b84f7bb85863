package dev.sluice.server.metrics;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.net.HostPort;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

/**
 * Times the connections sessions and pools open to backends, from the connect to the end of the
 * login (BEHAVIOUR §12: the backend connect latency histogram). The monitor's own connections do
 * not go through it.
 */
public final class TimedBackendConnector implements BackendConnector {
    private final BackendConnector connector;
    private final SluiceMetrics metrics;

    public TimedBackendConnector(BackendConnector connector, SluiceMetrics metrics) {
        this.connector = connector;
        this.metrics = metrics;
    }

    @Override
    public Future<BackendConnection> connect(EventLoop loop, String nodeName, int nodeId, HostPort address,
            LoginRequest request) {
        long started = System.nanoTime();
        Future<BackendConnection> connected = connector.connect(loop, nodeName, nodeId, address, request);
        connected.addListener(f -> metrics.backendConnectDuration(nodeName, f.isSuccess(),
                System.nanoTime() - started));
        return connected;
    }
}
