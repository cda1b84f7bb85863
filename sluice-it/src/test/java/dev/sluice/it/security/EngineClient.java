package dev.sluice.it.security;

import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.handshake.SslRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A MySQL client that does TLS by hand with an {@link SSLEngine}, so that the test decides what
 * goes into each TCP write: here, the SSLRequest and the TLS ClientHello in one write, as a fast
 * client's bytes can arrive at the server in one read.
 */
final class EngineClient implements AutoCloseable {
    private static final long CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SECURE_CONNECTION
            | Capabilities.CLIENT_PLUGIN_AUTH | Capabilities.CLIENT_TRANSACTIONS | Capabilities.CLIENT_LONG_PASSWORD
            | Capabilities.CLIENT_MULTI_RESULTS | Capabilities.CLIENT_CONNECT_WITH_DB | Capabilities.CLIENT_SSL;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final SSLEngine engine;
    private ByteBuffer netIn;
    private ByteBuffer appIn;
    private X509Certificate[] serverChain;

    private EngineClient(Socket socket, SSLEngine engine) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.engine = engine;
        this.netIn = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
        netIn.flip();
        appIn.flip();
    }

    /** Connects, reads the greeting, sends SSLRequest + ClientHello in one write, finishes TLS, logs in. */
    static EngineClient loginCoalesced(int port, String user, String password, Duration timeout) throws Exception {
        return loginCoalesced(port, user, password, timeout, new java.util.ArrayList<>());
    }

    /**
     * As {@link #loginCoalesced(int, String, String, Duration)}, following an auth switch to
     * {@code caching_sha2_password} and its full authentication; {@code transcript} gets one line
     * per step of the exchange after the HandshakeResponse41 ("auth switch to …", "full
     * authentication", "OK").
     */
    static EngineClient loginCoalesced(int port, String user, String password, Duration timeout,
            java.util.List<String> transcript) throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), (int) timeout.toMillis());
        s.setSoTimeout((int) timeout.toMillis());
        s.setTcpNoDelay(true);
        EngineClient c = new EngineClient(s, trustingContext().createSSLEngine("127.0.0.1", port));
        try {
            c.login(user, password, transcript);
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    private void login(String user, String password, java.util.List<String> transcript) throws IOException {
        byte[] greetingPacket = readPlainPacket();
        HandshakeV10 greeting = HandshakeV10.decode(Unpooled.wrappedBuffer(greetingPacket, HEADER_SIZE,
                greetingPacket.length - HEADER_SIZE));
        if (!Capabilities.has(greeting.capabilities(), Capabilities.CLIENT_SSL)) {
            throw new IOException("the greeting does not offer CLIENT_SSL");
        }
        long caps = CAPABILITIES & greeting.capabilities();
        ByteBuf sslRequest = Unpooled.buffer();
        new SslRequest(caps, 1 << 24, 45).encode(sslRequest);
        engine.setUseClientMode(true);
        engine.beginHandshake();
        ByteBuffer hello = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        SSLEngineResult r = engine.wrap(ByteBuffer.allocate(0), hello);
        if (r.getStatus() != SSLEngineResult.Status.OK) {
            throw new SSLException("could not make a ClientHello: " + r);
        }
        hello.flip();
        ByteArrayOutputStream one = new ByteArrayOutputStream();
        one.write(header(sslRequest.readableBytes(), 1));
        one.write(bytes(sslRequest));
        one.write(hello.array(), 0, hello.limit());
        out.write(one.toByteArray()); // one write: both arrive together
        out.flush();
        handshake();
        byte[] seed = Arrays.copyOf(greeting.scramble(), 20);
        HandshakeResponse41 response = new HandshakeResponse41(caps, 1 << 24, 45, user,
                NativePassword.scramble(password.getBytes(StandardCharsets.UTF_8), seed), Optional.empty(),
                Optional.of(NativePassword.PLUGIN_NAME), Map.of());
        ByteBuf b = Unpooled.buffer();
        response.encode(b);
        writePacket(2, bytes(b));
        byte[] answer = readPacket();
        byte[] pw = password.getBytes(StandardCharsets.UTF_8);
        if ((answer[HEADER_SIZE] & 0xFF) == 0xFE) {
            int nul = HEADER_SIZE + 1;
            while (answer[nul] != 0) {
                nul++;
            }
            String plugin = new String(answer, HEADER_SIZE + 1, nul - HEADER_SIZE - 1, StandardCharsets.US_ASCII);
            byte[] nonce = Arrays.copyOfRange(answer, nul + 1, nul + 1 + 20);
            transcript.add("auth switch to " + plugin);
            byte[] reply = plugin.equals(CachingSha2Password.PLUGIN_NAME) ? CachingSha2Password.scramble(pw, nonce)
                    : NativePassword.scramble(pw, nonce);
            writePacket((answer[3] + 1) & 0xFF, reply);
            answer = readPacket();
        }
        if ((answer[HEADER_SIZE] & 0xFF) == 0x01 && answer.length > HEADER_SIZE + 1
                && answer[HEADER_SIZE + 1] == CachingSha2Password.PERFORM_FULL_AUTHENTICATION) {
            transcript.add("full authentication");
            writePacket((answer[3] + 1) & 0xFF, Arrays.copyOf(pw, pw.length + 1));
            answer = readPacket();
        }
        if ((answer[HEADER_SIZE] & 0xFF) != 0x00) {
            throw new IOException("login not accepted: first byte 0x" + Integer.toHexString(answer[HEADER_SIZE] & 0xFF)
                    + ((answer[HEADER_SIZE] & 0xFF) == 0xFF ? " " + new String(answer, HEADER_SIZE + 3, answer.length - HEADER_SIZE - 3,
                            StandardCharsets.UTF_8) : ""));
        }
        transcript.add("OK");
    }

    /** The certificate Sluice presented. */
    X509Certificate serverCertificate() {
        return serverChain[0];
    }

    /** Runs {@code SELECT} text and returns the first column of the first row. */
    String queryFirstValue(String sql) throws IOException {
        byte[] q = sql.getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[q.length + 1];
        payload[0] = 0x03;
        System.arraycopy(q, 0, payload, 1, q.length);
        writePacket(0, payload);
        byte[] first = readPacket();
        if ((first[HEADER_SIZE] & 0xFF) == 0xFF) {
            throw new IOException("query failed: " + new String(first, HEADER_SIZE + 9, first.length - HEADER_SIZE - 9,
                    StandardCharsets.UTF_8));
        }
        int columns = first[HEADER_SIZE] & 0xFF;
        for (int i = 0; i < columns; i++) {
            readPacket();
        }
        readPacket(); // EOF after the column definitions
        byte[] row = readPacket();
        int len = row[HEADER_SIZE] & 0xFF;
        String value = new String(row, HEADER_SIZE + 1, len, StandardCharsets.UTF_8);
        while ((readPacket()[HEADER_SIZE] & 0xFF) != 0xFE) {
            // the rest of the rows
        }
        return value;
    }

    private void handshake() throws IOException {
        HandshakeStatus hs = engine.getHandshakeStatus();
        while (hs != HandshakeStatus.FINISHED && hs != HandshakeStatus.NOT_HANDSHAKING) {
            switch (hs) {
                case NEED_WRAP -> {
                    ByteBuffer net = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
                    SSLEngineResult r = engine.wrap(ByteBuffer.allocate(0), net);
                    net.flip();
                    out.write(net.array(), 0, net.limit());
                    out.flush();
                    hs = r.getHandshakeStatus();
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    SSLEngineResult r = unwrapOnce();
                    hs = r.getHandshakeStatus();
                }
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) {
                        task.run();
                    }
                    hs = engine.getHandshakeStatus();
                }
                default -> throw new SSLException("unexpected handshake status " + hs);
            }
        }
        serverChain = (X509Certificate[]) engine.getSession().getPeerCertificates();
    }

    /** Unwraps one record, reading from the socket as needed. */
    private SSLEngineResult unwrapOnce() throws IOException {
        while (true) {
            appIn.compact();
            SSLEngineResult r = engine.unwrap(netIn, appIn);
            appIn.flip();
            switch (r.getStatus()) {
                case OK, CLOSED:
                    return r;
                case BUFFER_UNDERFLOW:
                    fill();
                    break;
                case BUFFER_OVERFLOW:
                    ByteBuffer bigger = ByteBuffer.allocate(appIn.capacity() * 2);
                    bigger.put(appIn);
                    bigger.flip();
                    appIn = bigger;
                    break;
                default:
                    throw new SSLException("unwrap: " + r);
            }
        }
    }

    private void fill() throws IOException {
        netIn.compact();
        if (!netIn.hasRemaining()) {
            ByteBuffer bigger = ByteBuffer.allocate(netIn.capacity() * 2);
            netIn.flip();
            bigger.put(netIn);
            netIn = bigger;
        }
        int n = in.read(netIn.array(), netIn.position(), netIn.remaining());
        if (n < 0) {
            throw new EOFException("Sluice closed the connection");
        }
        netIn.position(netIn.position() + n);
        netIn.flip();
    }

    private void writePacket(int seq, byte[] payload) throws IOException {
        ByteBuffer app = ByteBuffer.allocate(HEADER_SIZE + payload.length);
        app.put(header(payload.length, seq)).put(payload).flip();
        while (app.hasRemaining()) {
            ByteBuffer net = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
            engine.wrap(app, net);
            net.flip();
            out.write(net.array(), 0, net.limit());
        }
        out.flush();
    }

    /** One packet, header included, from inside TLS. */
    private byte[] readPacket() throws IOException {
        while (appIn.remaining() < HEADER_SIZE) {
            unwrapOnce();
        }
        int length = (appIn.get(appIn.position()) & 0xFF) | (appIn.get(appIn.position() + 1) & 0xFF) << 8
                | (appIn.get(appIn.position() + 2) & 0xFF) << 16;
        while (appIn.remaining() < HEADER_SIZE + length) {
            unwrapOnce();
        }
        byte[] packet = new byte[HEADER_SIZE + length];
        appIn.get(packet);
        return packet;
    }

    private byte[] readPlainPacket() throws IOException {
        byte[] header = in.readNBytes(HEADER_SIZE);
        if (header.length < HEADER_SIZE) {
            throw new EOFException("closed before the greeting");
        }
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        byte[] packet = Arrays.copyOf(header, HEADER_SIZE + length);
        System.arraycopy(in.readNBytes(length), 0, packet, HEADER_SIZE, length);
        return packet;
    }

    private static byte[] header(int length, int seq) {
        return new byte[] {(byte) length, (byte) (length >>> 8), (byte) (length >>> 16), (byte) seq};
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    static SSLContext trustingContext() throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        return ctx;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
