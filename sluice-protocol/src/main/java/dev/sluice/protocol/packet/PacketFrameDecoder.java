package dev.sluice.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the byte stream into {@link Packet}s.
 *
 * <pre>
 *   bytes ──▶ [header: len, seq] ──▶ frame payload (retained slice, zero copy)
 *                                        │
 *             LOGICAL:  frames of 0xFFFFFF bytes are joined (composite, zero copy) with
 *                       what follows, until a shorter frame ends the packet ──▶ Packet
 *             PHYSICAL: every frame ──▶ Packet (continuation / moreFollows flags set)
 * </pre>
 *
 * <p>The limit applies to the logical payload in both modes and is checked as soon as a
 * header is read, so an oversized packet is rejected before its body is buffered. After a
 * {@link PacketTooLargeException} the decoder discards everything that follows: the server
 * is expected to send an error and close.
 *
 * @see Packets
 * @see <a href="https://mariadb.com/kb/en/0-packet/">MariaDB: packet</a>
 */
public final class PacketFrameDecoder extends ByteToMessageDecoder {
    /** What one emitted {@link Packet} stands for. */
    public enum Mode {
        /** One packet per logical payload, continuations joined. */
        LOGICAL,
        /** One packet per frame on the wire, as it arrived (for forwarding). */
        PHYSICAL
    }

    private enum State {
        FRAMING,
        DISCARDING
    }

    /** A joined payload must still fit one {@link ByteBuf}. */
    private static final long MAX_JOINED = Integer.MAX_VALUE;

    private final Mode mode;
    private long maxPayloadSize;
    private State state = State.FRAMING;
    /** Bytes of the current logical packet seen in earlier frames. */
    private long pendingLength;
    /** PHYSICAL: the previous frame was 0xFFFFFF bytes long. */
    private boolean continuing;
    /** LOGICAL: frames joined so far, or null. */
    private CompositeByteBuf joined;
    private int firstSequenceId;

    /** A joining decoder. */
    public PacketFrameDecoder(long maxPayloadSize) {
        this(maxPayloadSize, Mode.LOGICAL);
    }

    public PacketFrameDecoder(long maxPayloadSize, Mode mode) {
        this.mode = mode;
        maxPayloadSize(maxPayloadSize);
    }

    /** Changes the limit, e.g. from a small one during the handshake to max_allowed_packet after it. */
    public void maxPayloadSize(long limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("maxPayloadSize " + limit);
        }
        this.maxPayloadSize = mode == Mode.LOGICAL ? Math.min(limit, MAX_JOINED) : limit;
    }

    public long maxPayloadSize() {
        return maxPayloadSize;
    }

    public Mode mode() {
        return mode;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.DISCARDING) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < Packets.HEADER_SIZE) {
            return;
        }
        int index = in.readerIndex();
        int length = Packets.payloadLength(in, index);
        int seq = Packets.sequenceId(in, index);
        long total = pendingLength + length;
        if (total > maxPayloadSize) {
            discard(in);
            throw new PacketTooLargeException(total, maxPayloadSize);
        }
        if (in.readableBytes() < Packets.HEADER_SIZE + length) {
            return;
        }
        in.skipBytes(Packets.HEADER_SIZE);
        ByteBuf frame = in.readRetainedSlice(length);
        boolean more = length == Packets.MAX_PAYLOAD;
        if (mode == Mode.PHYSICAL) {
            out.add(new Packet(seq, frame, seq, continuing, more));
            continuing = more;
        } else if (joined == null && !more) {
            out.add(new Packet(seq, frame));
        } else {
            if (joined == null) {
                joined = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
                firstSequenceId = seq;
            }
            joined.addComponent(true, frame);
            if (!more) {
                out.add(new Packet(firstSequenceId, joined, seq, false, false));
                joined = null;
            }
        }
        pendingLength = more ? total : 0;
    }

    private void discard(ByteBuf in) {
        state = State.DISCARDING;
        in.skipBytes(in.readableBytes());
        releaseJoined();
    }

    private void releaseJoined() {
        if (joined != null) {
            joined.release();
            joined = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseJoined();
    }
}
