package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the client's byte stream into physical packets, <em>header included</em>, so that a
 * command can be forwarded to a backend as the very bytes the client sent. Logical packets of
 * 16 MB and more arrive as several frames; {@link #maxLogicalPayload} bounds their sum, as the
 * server's {@code max_allowed_packet} does.
 *
 * <p>When the client's first packet is an SSLRequest, decoding stops right after it: what follows
 * is the client's TLS handshake, not packets, and {@link #takeBuffered()} hands it to TLS.
 */
final class ClientFrameDecoder extends ByteToMessageDecoder {
    private final long maxLogicalPayload;
    private final DrainBeforeClose drain;
    private long logicalSoFar;
    private boolean first = true;
    private boolean discarding;

    ClientFrameDecoder(long maxLogicalPayload, DrainBeforeClose drain) {
        this.maxLogicalPayload = maxLogicalPayload;
        this.drain = drain;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (discarding) {
            // The rest of a packet over the limit, and whatever follows it: the connection is ending.
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= Packets.HEADER_SIZE) {
            int start = in.readerIndex();
            int length = Packets.payloadLength(in, start);
            logicalSoFar += length;
            if (logicalSoFar > maxLogicalPayload) {
                in.skipBytes(in.readableBytes());
                discarding = true;
                drain.drainOnClose();
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
            ByteBuf frame = in.readRetainedSlice(Packets.HEADER_SIZE + length);
            out.add(frame);
            if (first) {
                first = false;
                if (isSslRequest(frame, length)) {
                    return;
                }
            }
        }
    }

    private static boolean isSslRequest(ByteBuf frame, int length) {
        return length == HandshakeResponse41.FIXED_PART_SIZE && Capabilities.has(
                frame.getUnsignedIntLE(frame.readerIndex() + Packets.HEADER_SIZE), Capabilities.CLIENT_SSL);
    }

    /** The bytes read but not decoded yet, taken out of the decoder (the caller owns them). */
    ByteBuf takeBuffered() {
        ByteBuf in = internalBuffer();
        return in.isReadable() ? in.readRetainedSlice(in.readableBytes()) : Unpooled.EMPTY_BUFFER;
    }

    /** A packet over the limit was announced; the connection must be refused and closed. */
    record OversizedPacket(long size, long limit, int sequenceId) {
    }
}
