package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the client's byte stream into physical packets, <em>header included</em>, so that a
 * command can be forwarded to a backend as the very bytes the client sent. Logical packets of
 * 16 MB and more arrive as several frames; {@link #maxLogicalPayload} bounds their sum, as the
 * server's {@code max_allowed_packet} does.
 */
final class ClientFrameDecoder extends ByteToMessageDecoder {
    private final long maxLogicalPayload;
    private long logicalSoFar;

    ClientFrameDecoder(long maxLogicalPayload) {
        this.maxLogicalPayload = maxLogicalPayload;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= Packets.HEADER_SIZE) {
            int start = in.readerIndex();
            int length = Packets.payloadLength(in, start);
            logicalSoFar += length;
            if (logicalSoFar > maxLogicalPayload) {
                in.skipBytes(in.readableBytes());
                out.add(new OversizedPacket(logicalSoFar, maxLogicalPayload, Packets.sequenceId(in, start)));
                return;
            }
            if (in.readableBytes() < Packets.HEADER_SIZE + length) {
                logicalSoFar -= length;
                return;
            }
            if (length < Packets.MAX_PAYLOAD) {
                logicalSoFar = 0;
            }
            out.add(in.readRetainedSlice(Packets.HEADER_SIZE + length));
        }
    }

    /** A packet over the limit was announced; the connection must be refused and closed. */
    record OversizedPacket(long size, long limit, int sequenceId) {
    }
}
