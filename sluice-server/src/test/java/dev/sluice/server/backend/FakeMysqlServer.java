package dev.sluice.server.backend;

import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;

import dev.sluice.protocol.handshake.HandshakeV10;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A scripted MySQL 8 server for one connection on a plain socket: the test writes the server's
 * side of the connection phase (there is no MySQL 8 in the sandbox, and MariaDB has no
 * caching_sha2_password server). Packets are read and written whole; TLS can be started on the
 * socket after the client's SSLRequest.
 */
final class FakeMysqlServer implements AutoCloseable {
    private static final int TIMEOUT_MS = 10_000;

    /** The script, run on its own thread against the accepted connection. */
    interface Script {
        void run(FakeMysqlServer server) throws Exception;
    }

    private final ServerSocket listener;
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    FakeMysqlServer(Script script) throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (Socket s = listener.accept()) {
                s.setSoTimeout(TIMEOUT_MS);
                socket = s;
                in = s.getInputStream();
                out = s.getOutputStream();
                script.run(this);
                finished.complete(null);
            } catch (Throwable e) {
                finished.completeExceptionally(e);
            }
        }, "fake-mysql");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Waits for the script to end; rethrows what failed in it. */
    void awaitScript() throws Exception {
        finished.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    void send(int sequenceId, byte[] payload) throws IOException {
        byte[] packet = new byte[HEADER_SIZE + payload.length];
        packet[0] = (byte) payload.length;
        packet[1] = (byte) (payload.length >>> 8);
        packet[2] = (byte) (payload.length >>> 16);
        packet[3] = (byte) sequenceId;
        System.arraycopy(payload, 0, packet, HEADER_SIZE, payload.length);
        out.write(packet);
        out.flush();
    }

    void sendGreeting(HandshakeV10 greeting) throws IOException {
        ByteBuf b = Unpooled.buffer();
        greeting.encode(b);
        byte[] payload = new byte[b.readableBytes()];
        b.readBytes(payload);
        send(0, payload);
    }

    /** One packet: [sequence id, payload...]. */
    byte[] receive(int expectedSequence) throws IOException {
        byte[] header = in.readNBytes(HEADER_SIZE);
        if (header.length < HEADER_SIZE) {
            throw new IOException("client closed the connection");
        }
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        int seq = header[3] & 0xFF;
        if (seq != expectedSequence) {
            throw new IOException("expected sequence id " + expectedSequence + ", got " + seq);
        }
        byte[] payload = in.readNBytes(length);
        return Arrays.copyOf(payload, payload.length);
    }

    /** Server-side TLS on the connection (after the client's SSLRequest). */
    void startTls(SSLContext context) throws IOException {
        SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(socket, null, socket.getPort(), false);
        ssl.setUseClientMode(false);
        ssl.startHandshake();
        in = ssl.getInputStream();
        out = ssl.getOutputStream();
    }

    /** True when the client has closed the connection (reads end). */
    boolean clientClosed() throws IOException {
        try {
            return in.read() < 0;
        } catch (IOException e) {
            return true;
        }
    }

    static byte[] ok() {
        return new byte[] {0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00};
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
