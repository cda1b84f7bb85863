package dev.sluice.it.security;

import dev.sluice.it.support.SocketPump;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay in front of Sluice that records what clients send: the way to capture real
 * drivers' packets (logins, commands, an SSLRequest and the TLS ClientHello after it) for the
 * network fuzz test's seeds. One recording per connection, the client-to-server bytes only.
 */
final class RecordingRelay implements AutoCloseable {
        private final ServerSocket listener;
    private final int upstreamPort;
    private final List<ByteArrayOutputStream> recordings = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final Thread acceptor;

    RecordingRelay(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "recording-relay");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 5_000);
                ByteArrayOutputStream recording = new ByteArrayOutputStream();
                synchronized (this) {
                    recordings.add(recording);
                    sockets.add(client);
                    sockets.add(upstream);
                }
                SocketPump.start(client, upstream, "recording-relay-pump", recording);
                SocketPump.start(upstream, client, "recording-relay-pump", null);
            } catch (IOException e) {
                // listener closed
            }
        }
    }

    /** What each connection's client has sent so far, in connection order. */
    synchronized List<byte[]> recordings() {
        List<byte[]> out = new ArrayList<>();
        for (ByteArrayOutputStream r : recordings) {
            synchronized (r) {
                out.add(r.toByteArray());
            }
        }
        return out;
    }

    @Override
    public synchronized void close() throws IOException {
        listener.close();
        sockets.forEach(SocketPump::closeQuietly);
    }
}
