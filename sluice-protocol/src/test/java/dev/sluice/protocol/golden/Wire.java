package dev.sluice.protocol.golden;

import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A blocking connection that records every frame in the golden format: {@code < hex} for a
 * frame from the server, {@code > hex} for a frame to it, header included. Used only by
 * {@link GoldenCapture}.
 */
final class Wire implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    final List<String> log = new ArrayList<>();

    Wire(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setSoTimeout(5000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    void comment(String text) {
        log.add("# " + text);
    }

    /** Reads one frame; returns its payload (header stripped), sequence id in {@link #lastSeq}. */
    byte[] read() throws IOException {
        byte[] header = new byte[Packets.HEADER_SIZE];
        in.readFully(header);
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        lastSeq = header[3] & 0xFF;
        byte[] payload = new byte[length];
        in.readFully(payload);
        log.add("< " + ByteBufUtil.hexDump(header) + ByteBufUtil.hexDump(payload));
        return payload;
    }

    int lastSeq;

    ByteBuf readBuf() throws IOException {
        return Unpooled.wrappedBuffer(read());
    }

    void write(int seq, ByteBuf payload) throws IOException {
        ByteBuf frame = Unpooled.buffer();
        Packets.writePacket(frame, seq, payload);
        byte[] bytes = ByteBufUtil.getBytes(frame);
        frame.release();
        payload.release();
        log.add("> " + ByteBufUtil.hexDump(bytes));
        out.write(bytes);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
