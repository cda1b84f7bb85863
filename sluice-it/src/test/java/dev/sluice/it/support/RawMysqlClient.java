package dev.sluice.it.support;

import static dev.sluice.protocol.Command.COM_QUERY;
import static dev.sluice.protocol.Command.COM_QUIT;
import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;
import static dev.sluice.protocol.packet.Packets.MAX_PAYLOAD;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.response.ErrPacket;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A deliberately bare MySQL client over a plain socket, for what real drivers never do: send
 * garbage, stop mid-packet, read a result at a trickle, look at sequence ids and at the bytes.
 *
 * <p>It speaks the classic protocol (no CLIENT_DEPRECATE_EOF, no TLS, {@code mysql_native_password}),
 * so a result set is: column count, column definitions, EOF, rows, EOF (or ERR anywhere).
 * Every read is bounded by the socket timeout: a proxy that hangs fails the test with a
 * {@link java.net.SocketTimeoutException} instead of hanging it.
 */
public final class RawMysqlClient implements AutoCloseable {
    private static final int UTF8MB4_GENERAL_CI = 45;
    private static final long CLIENT_CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41
            | Capabilities.CLIENT_SECURE_CONNECTION | Capabilities.CLIENT_PLUGIN_AUTH | Capabilities.CLIENT_LONG_PASSWORD
            | Capabilities.CLIENT_TRANSACTIONS | Capabilities.CLIENT_MULTI_RESULTS | Capabilities.CLIENT_CONNECT_WITH_DB
            | Capabilities.CLIENT_LONG_FLAG;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private HandshakeV10 greeting;

    /** One packet as it came: sequence id and payload (header stripped, continuations not joined). */
    public record RawPacket(int sequenceId, byte[] payload) {
        public int first() {
            return payload.length == 0 ? -1 : payload[0] & 0xFF;
        }

        public boolean isErr() {
            return first() == 0xFF;
        }

        public boolean isOk() {
            return first() == 0x00;
        }

        /** An EOF packet of the classic protocol (a row may start with 0xFE only when it is huge). */
        public boolean isEof() {
            return first() == 0xFE && payload.length < 9;
        }

        public ErrPacket err() {
            ByteBuf b = Unpooled.wrappedBuffer(payload);
            return ErrPacket.decode(b);
        }

        public String hex() {
            return HexFormat.ofDelimiter(" ").formatHex(payload, 0, Math.min(payload.length, 256))
                    + (payload.length > 256 ? " …(" + payload.length + " bytes)" : "");
        }

        @Override
        public String toString() {
            return "packet seq=" + sequenceId + " len=" + payload.length + " [" + hex() + "]";
        }
    }

    /** A login refused or a query answered with ERR. */
    public static final class ServerErrorException extends IOException {
        private final RawPacket packet;

        ServerErrorException(RawPacket packet) {
            super("ERR " + packet.err().errorCode() + " (" + packet.err().sqlState() + "): " + packet.err().message());
            this.packet = packet;
        }

        public RawPacket packet() {
            return packet;
        }

        public ErrPacket err() {
            return packet.err();
        }
    }

    private RawMysqlClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Opens the TCP connection only; the greeting is not read yet. */
    public static RawMysqlClient open(int port, Duration readTimeout) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout((int) readTimeout.toMillis());
        s.setTcpNoDelay(true);
        return new RawMysqlClient(s);
    }

    /** Connects and logs in as {@code user} into {@code database}; throws on ERR. */
    public static RawMysqlClient login(int port, String user, String password, String database, Duration readTimeout)
            throws IOException {
        return login(port, user, password, database, readTimeout, UTF8MB4_GENERAL_CI);
    }

    /** Like {@link #login(int, String, String, String, Duration)}, choosing the connection's collation in the handshake. */
    public static RawMysqlClient login(int port, String user, String password, String database, Duration readTimeout,
            int collation) throws IOException {
        RawMysqlClient c = open(port, readTimeout);
        try {
            c.readGreeting();
            c.sendLogin(user, password, database, collation);
            RawPacket answer = c.readPacket();
            if (answer.first() == 0xFE) {
                // Auth switch: plugin name NUL, then the new seed.
                byte[] p = answer.payload();
                int nul = indexOf(p, 1, (byte) 0);
                byte[] seed = java.util.Arrays.copyOfRange(p, nul + 1, Math.min(p.length, nul + 1 + 20));
                c.writePacket(answer.sequenceId() + 1, NativePassword.scramble(password.getBytes(StandardCharsets.UTF_8), seed));
                answer = c.readPacket();
            }
            if (answer.isErr()) {
                throw new ServerErrorException(answer);
            }
            if (!answer.isOk()) {
                throw new IOException("unexpected login answer " + answer);
            }
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    public HandshakeV10 readGreeting() throws IOException {
        RawPacket p = readPacket();
        if (p.isErr()) {
            throw new ServerErrorException(p);
        }
        ByteBuf b = Unpooled.wrappedBuffer(p.payload());
        greeting = HandshakeV10.decode(b);
        return greeting;
    }

    public HandshakeV10 greeting() {
        return greeting;
    }

    /** Writes a HandshakeResponse41 for {@code user} answering the greeting's scramble. */
    public void sendLogin(String user, String password, String database) throws IOException {
        sendLogin(user, password, database, UTF8MB4_GENERAL_CI);
    }

    private void sendLogin(String user, String password, String database, int collation) throws IOException {
        long caps = CLIENT_CAPABILITIES & greeting.capabilities();
        byte[] seed = java.util.Arrays.copyOf(greeting.scramble(), 20);
        byte[] auth = password.isEmpty() ? new byte[0]
                : NativePassword.scramble(password.getBytes(StandardCharsets.UTF_8), seed);
        HandshakeResponse41 response = new HandshakeResponse41(caps, 1 << 30, collation, user, auth,
                Optional.ofNullable(database), Optional.of(NativePassword.PLUGIN_NAME), Map.of());
        ByteBuf b = Unpooled.buffer();
        try {
            response.encode(b);
            byte[] payload = new byte[b.readableBytes()];
            b.readBytes(payload);
            writePacket(1, payload);
        } finally {
            b.release();
        }
    }

    // ---- writing ----

    /** Writes one logical packet (split into 16 MB frames as needed), first frame with {@code seq}. */
    public void writePacket(int seq, byte[] payload) throws IOException {
        int offset = 0;
        int s = seq;
        while (true) {
            int chunk = Math.min(MAX_PAYLOAD, payload.length - offset);
            byte[] header = {(byte) chunk, (byte) (chunk >>> 8), (byte) (chunk >>> 16), (byte) s};
            out.write(header);
            out.write(payload, offset, chunk);
            offset += chunk;
            s = (s + 1) & 0xFF;
            if (chunk < MAX_PAYLOAD) {
                break;
            }
        }
        out.flush();
    }

    /**
     * Sends {@code prefix + filler x n + suffix} as one COM_QUERY without holding it in memory:
     * frames of 16 MB are generated as they are written.
     */
    public void sendHugeQuery(String prefix, byte filler, long n, String suffix) throws IOException {
        byte[] head = ((char) COM_QUERY + prefix).getBytes(StandardCharsets.ISO_8859_1);
        byte[] tail = suffix.getBytes(StandardCharsets.ISO_8859_1);
        long total = head.length + n + tail.length;
        byte[] fill = new byte[64 * 1024];
        java.util.Arrays.fill(fill, filler);
        long written = 0;
        int seq = 0;
        while (true) {
            int chunk = (int) Math.min(MAX_PAYLOAD, total - written);
            out.write(new byte[] {(byte) chunk, (byte) (chunk >>> 8), (byte) (chunk >>> 16), (byte) seq});
            long end = written + chunk;
            while (written < end) {
                if (written < head.length) {
                    int k = (int) Math.min(head.length - written, end - written);
                    out.write(head, (int) written, k);
                    written += k;
                } else if (written < head.length + n) {
                    int k = (int) Math.min(Math.min(fill.length, head.length + n - written), end - written);
                    out.write(fill, 0, k);
                    written += k;
                } else {
                    int from = (int) (written - head.length - n);
                    int k = (int) Math.min(tail.length - from, end - written);
                    out.write(tail, from, k);
                    written += k;
                }
            }
            seq = (seq + 1) & 0xFF;
            if (chunk < MAX_PAYLOAD) {
                break;
            }
        }
        out.flush();
    }

    /** Writes raw bytes, no framing: for headers that lie. */
    public void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    public void sendCommand(int command, byte[] argument) throws IOException {
        byte[] payload = new byte[1 + argument.length];
        payload[0] = (byte) command;
        System.arraycopy(argument, 0, payload, 1, argument.length);
        writePacket(0, payload);
    }

    public void sendQuery(String sql) throws IOException {
        sendCommand(COM_QUERY, sql.getBytes(StandardCharsets.UTF_8));
    }

    /** A query written in {@code charset}, as a client using that character set sends it. */
    public List<List<String>> query(String sql, java.nio.charset.Charset charset) throws IOException {
        sendCommand(COM_QUERY, sql.getBytes(charset));
        return readResult();
    }

    // ---- reading ----

    /** The next physical packet; {@link EOFException} when the peer closed the connection. */
    public RawPacket readPacket() throws IOException {
        byte[] header = new byte[HEADER_SIZE];
        in.readFully(header);
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new RawPacket(header[3] & 0xFF, payload);
    }

    /**
     * Reads the next packet if the connection still delivers one; empty when it was closed (EOF or
     * reset). Never waits longer than the socket timeout.
     */
    public Optional<RawPacket> readPacketOrClose() throws IOException {
        try {
            return Optional.of(readPacket());
        } catch (EOFException e) {
            return Optional.empty();
        } catch (SocketException e) {
            if (String.valueOf(e.getMessage()).contains("reset")) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** True when the peer closed cleanly: reads reach the end of the stream, not a reset. */
    public boolean closedCleanly() throws IOException {
        try {
            while (in.read() >= 0) {
                // what is left before the end of the stream does not matter here
            }
            return true;
        } catch (SocketException e) {
            return false;
        }
    }

    /** True when the peer has closed: the next read sees end of stream (or a reset) within the timeout. */
    public boolean awaitClosed() throws IOException {
        try {
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return true;
                }
            }
        } catch (SocketException e) {
            return String.valueOf(e.getMessage()).contains("reset");
        }
    }

    /**
     * Runs a query whose result is small and returns its rows as strings (null for SQL NULL).
     * Throws {@link ServerErrorException} on ERR.
     */
    public List<List<String>> query(String sql) throws IOException {
        sendQuery(sql);
        return readResult();
    }

    /** Reads the (small) answer to a COM_QUERY already sent: rows as strings; none for an OK. */
    public List<List<String>> readResult() throws IOException {
        RawPacket first = readPacket();
        if (first.isErr()) {
            throw new ServerErrorException(first);
        }
        if (first.isOk()) {
            return List.of();
        }
        int columns = (int) lenenc(first.payload(), new int[] {0});
        for (int i = 0; i < columns; i++) {
            readPacket();
        }
        RawPacket eof = readPacket();
        if (!eof.isEof()) {
            throw new IOException("expected EOF after column definitions, got " + eof);
        }
        List<List<String>> rows = new ArrayList<>();
        while (true) {
            RawPacket p = readPacket();
            if (p.isErr()) {
                throw new ServerErrorException(p);
            }
            if (p.isEof()) {
                return rows;
            }
            int[] pos = {0};
            List<String> row = new ArrayList<>();
            for (int i = 0; i < columns; i++) {
                if ((p.payload()[pos[0]] & 0xFF) == 0xFB) {
                    pos[0]++;
                    row.add(null);
                } else {
                    int len = (int) lenenc(p.payload(), pos);
                    row.add(new String(p.payload(), pos[0], len, StandardCharsets.UTF_8));
                    pos[0] += len;
                }
            }
            rows.add(row);
        }
    }

    /** The backend connection's thread id ({@code @@pseudo_thread_id}: through Sluice, CONNECTION_ID() answers Sluice's own id). */
    public long connectionId() throws IOException {
        return Long.parseLong(query("SELECT @@pseudo_thread_id").get(0).get(0));
    }

    /**
     * Reads {@code n} bytes (or up to the end of the stream), in chunks of {@code chunk}, pausing
     * {@code pauseMs} after each: a slow reader. Returns the bytes read.
     */
    public long trickle(long n, int chunk, long pauseMs) throws IOException {
        byte[] buf = new byte[chunk];
        long total = 0;
        while (total < n) {
            int r = in.read(buf, 0, (int) Math.min(chunk, n - total));
            if (r < 0) {
                break;
            }
            total += r;
            pause(pauseMs);
        }
        return total;
    }

    /** Reads exactly {@code payload.length} bytes, in slow chunks. */
    public void readFullySlowly(byte[] payload, int chunk, long pauseMs) throws IOException {
        int off = 0;
        while (off < payload.length) {
            int r = in.read(payload, off, Math.min(chunk, payload.length - off));
            if (r < 0) {
                throw new EOFException("connection closed after " + off + " of " + payload.length + " payload bytes");
            }
            off += r;
            pause(pauseMs);
        }
    }

    /** Reads a header, returning {length, seq}; -1 length at end of stream. */
    public int[] readHeader() throws IOException {
        byte[] header = new byte[HEADER_SIZE];
        int off = 0;
        while (off < HEADER_SIZE) {
            int r = in.read(header, off, HEADER_SIZE - off);
            if (r < 0) {
                if (off == 0) {
                    return new int[] {-1, -1};
                }
                throw new EOFException("connection closed inside a packet header");
            }
            off += r;
        }
        return new int[] {(header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16, header[3] & 0xFF};
    }

    private static void pause(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public Socket socket() {
        return socket;
    }

    /** Closes with an RST-free FIN, as a client that simply goes away. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    // ---- helpers ----

    /** A length-encoded integer at {@code pos[0]}; advances it. */
    public static long lenenc(byte[] p, int[] pos) {
        int first = p[pos[0]] & 0xFF;
        pos[0]++;
        if (first < 0xFB) {
            return first;
        }
        int bytes = first == 0xFC ? 2 : first == 0xFD ? 3 : 8;
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v |= (long) (p[pos[0] + i] & 0xFF) << (8 * i);
        }
        pos[0] += bytes;
        return v;
    }

    private static int indexOf(byte[] a, int from, byte b) {
        for (int i = from; i < a.length; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return a.length;
    }

    /** Bytes for logging. */
    public static String hex(byte[] bytes) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }

    /** An input stream for whoever wants to consume the rest in its own way. */
    public InputStream input() {
        return in;
    }
}
