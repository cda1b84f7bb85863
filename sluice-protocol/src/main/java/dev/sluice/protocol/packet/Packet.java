package dev.sluice.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;

/**
 * One packet as read from the wire: its sequence id and its payload (header stripped).
 *
 * <p>The payload is reference-counted and owned by whoever receives the packet: release it
 * (or the packet, which is a {@link ByteBufHolder}, so that Netty's tail handler releases
 * packets nobody handled).
 *
 * <p>From a {@link PacketFrameDecoder} in joining mode, a packet is <em>logical</em>: its
 * 0xFFFFFF-byte continuations are joined, {@code sequenceId} is the first physical packet's
 * id and {@code lastSequenceId} the last one's (reply with {@code lastSequenceId + 1}). In
 * physical mode every packet is one frame: {@code continuation} says that it carries the
 * middle or the end of a larger payload (never interpret its first byte as a header), and
 * {@code moreFollows} that another frame of the same payload comes next.
 *
 * @param sequenceId sequence id of the (first) frame, 0..255
 * @param payload the payload, reader index at its first byte
 * @param lastSequenceId sequence id of the last frame of this packet
 * @param continuation physical mode: this frame continues an earlier one
 * @param moreFollows physical mode: this frame is exactly 0xFFFFFF bytes and is continued
 */
public record Packet(int sequenceId, ByteBuf payload, int lastSequenceId, boolean continuation,
        boolean moreFollows) implements ByteBufHolder {

    /** A single-frame packet. */
    public Packet(int sequenceId, ByteBuf payload) {
        this(sequenceId, payload, sequenceId, false, false);
    }

    /** The sequence id a reply to this packet must carry. */
    public int nextSequenceId() {
        return (lastSequenceId + 1) & Packets.SEQUENCE_MASK;
    }

    @Override
    public ByteBuf content() {
        return payload;
    }

    @Override
    public Packet copy() {
        return replace(payload.copy());
    }

    @Override
    public Packet duplicate() {
        return replace(payload.duplicate());
    }

    @Override
    public Packet retainedDuplicate() {
        return replace(payload.retainedDuplicate());
    }

    @Override
    public Packet replace(ByteBuf content) {
        return new Packet(sequenceId, content, lastSequenceId, continuation, moreFollows);
    }

    @Override
    public int refCnt() {
        return payload.refCnt();
    }

    @Override
    public Packet retain() {
        payload.retain();
        return this;
    }

    @Override
    public Packet retain(int increment) {
        payload.retain(increment);
        return this;
    }

    @Override
    public Packet touch() {
        payload.touch();
        return this;
    }

    @Override
    public Packet touch(Object hint) {
        payload.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return payload.release();
    }

    @Override
    public boolean release(int decrement) {
        return payload.release(decrement);
    }

    @Override
    public String toString() {
        return "Packet[seq=" + sequenceId + (lastSequenceId != sequenceId ? ".." + lastSequenceId : "")
                + ", length=" + (payload.refCnt() > 0 ? payload.readableBytes() : -1)
                + (continuation ? ", continuation" : "") + (moreFollows ? ", moreFollows" : "") + "]";
    }
}
