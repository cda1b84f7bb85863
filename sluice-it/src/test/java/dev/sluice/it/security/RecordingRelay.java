package dev.sluice.it.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
    private static final int BUFFER = 16 * 1024;

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
                pump(client, upstream, recording);
                pump(upstream, client, null);
            } catch (IOException e) {
                // listener closed
            }
        }
    }

    private static void pump(Socket from, Socket to, ByteArrayOutputStream recording) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread t = new Thread(() -> {
            byte[] buf = new byte[BUFFER];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (recording != null) {
                        synchronized (recording) {
                            recording.write(buf, 0, n);
                        }
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "recording-relay-pump");
        t.setDaemon(true);
        t.start();
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

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public synchronized void close() throws IOException {
        listener.close();
        sockets.forEach(RecordingRelay::closeQuietly);
    }
}
