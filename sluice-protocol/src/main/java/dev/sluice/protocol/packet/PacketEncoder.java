package dev.sluice.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Writes {@link Packet}s with their headers, without copying payloads.
 *
 * <p>A packet whose {@code moreFollows} flag is set is a physical frame being forwarded and is
 * written as that one frame. Any other packet is a logical payload and is split into frames
 * of 0xFFFFFF bytes as {@link Packets#writePacket} does, starting at its {@code sequenceId}.
 */
@ChannelHandler.Sharable
public final class PacketEncoder extends MessageToMessageEncoder<Packet> {
    public static final PacketEncoder INSTANCE = new PacketEncoder();

    private PacketEncoder() {
        super(Packet.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Packet packet, List<Object> out) {
        ByteBuf payload = packet.payload();
        if (packet.moreFollows()) {
            if (payload.readableBytes() != Packets.MAX_PAYLOAD) {
                throw new IllegalArgumentException("a frame that is continued must be 0xFFFFFF bytes: " + packet);
            }
            out.add(header(ctx, Packets.MAX_PAYLOAD, packet.sequenceId()));
            out.add(payload.retain());
            return;
        }
        int seq = packet.sequenceId();
        int index = payload.readerIndex();
        int remaining = payload.readableBytes();
        while (true) {
            int chunk = Math.min(remaining, Packets.MAX_PAYLOAD);
            out.add(header(ctx, chunk, seq));
            if (chunk > 0) {
                out.add(payload.retainedSlice(index, chunk));
            }
            index += chunk;
            remaining -= chunk;
            seq = (seq + 1) & Packets.SEQUENCE_MASK;
            if (chunk < Packets.MAX_PAYLOAD) {
                return;
            }
        }
    }

    private static ByteBuf header(ChannelHandlerContext ctx, int length, int seq) {
        ByteBuf header = ctx.alloc().buffer(Packets.HEADER_SIZE);
        Packets.writeHeader(header, length, seq);
        return header;
    }
}
