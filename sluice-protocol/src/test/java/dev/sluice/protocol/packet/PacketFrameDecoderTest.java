package dev.sluice.protocol.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.protocol.NoLeaks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(NoLeaks.class)
class PacketFrameDecoderTest {
    static final int MAX = Packets.MAX_PAYLOAD;
    private final List<ByteBuf> owned = new ArrayList<>();
    private EmbeddedChannel channel;

    @AfterEach
    void releaseAll() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
        owned.forEach(b -> {
            if (b.refCnt() > 0) {
                b.release(b.refCnt());
            }
        });
    }

    /** A pooled (leak-tracked) buffer filled in one bulk write: paranoid detection records every access. */
    private ByteBuf pattern(int length) {
        ByteBuf payload = ByteBufAllocator.DEFAULT.buffer(length).writeBytes(PacketsTest.pattern(length));
        owned.add(payload);
        return payload;
    }

    private static void assertSameBytes(ByteBuf actual, ByteBuf expected) {
        assertThat(actual.readableBytes()).isEqualTo(expected.readableBytes());
        assertThat(Arrays.equals(ByteBufUtil.getBytes(actual), ByteBufUtil.getBytes(expected))).isTrue();
    }

    private static ByteBuf framed(int seq, ByteBuf payload) {
        ByteBuf wire = ByteBufAllocator.DEFAULT.buffer((int) Packets.framedSize(payload.readableBytes()));
        Packets.writePacket(wire, seq, payload.duplicate());
        return wire;
    }

    private Packet read() {
        Packet packet = channel.readInbound();
        assertThat(packet).isNotNull();
        return packet;
    }

    @Test
    void smallPacketsComeOutOneByOneEvenFromOneBuffer() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(1024));
        ByteBuf wire = ByteBufAllocator.DEFAULT.buffer();
        Packets.writePacket(wire, 0, new byte[] {3, 'a'});
        Packets.writePacket(wire, 1, new byte[0]);
        Packets.writePacket(wire, 2, new byte[] {9});
        channel.writeInbound(wire);
        Packet a = read();
        Packet empty = read();
        Packet c = read();
        assertThat(a.sequenceId()).isEqualTo(0);
        assertThat(a.payload().readableBytes()).isEqualTo(2);
        assertThat(a.nextSequenceId()).isEqualTo(1);
        assertThat(empty.payload().isReadable()).isFalse();
        assertThat(c.sequenceId()).isEqualTo(2);
        assertThat(c.continuation()).isFalse();
        assertThat(c.moreFollows()).isFalse();
        a.release();
        empty.release();
        c.release();
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void bytesArrivingOneAtATimeMakeThePacket() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(1024));
        ByteBuf wire = framed(5, pattern(10));
        while (wire.isReadable()) {
            assertThat(channel.<Object>readInbound()).isNull();
            channel.writeInbound(wire.readRetainedSlice(1));
        }
        wire.release();
        Packet packet = read();
        assertThat(packet.sequenceId()).isEqualTo(5);
        assertSameBytes(packet.payload(), pattern(10));
        packet.release();
    }

    @ParameterizedTest
    @ValueSource(ints = {MAX - 1, MAX, MAX + 1, 2 * MAX, 2 * MAX + 100})
    void continuationsAreJoinedIntoOneLogicalPacket(int length) {
        channel = new EmbeddedChannel(new PacketFrameDecoder(64L << 20));
        ByteBuf payload = pattern(length);
        ByteBuf wire = framed(250, payload);
        // Arrive in uneven chunks that cut through headers.
        while (wire.isReadable()) {
            channel.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), 5_000_003)));
        }
        wire.release();
        Packet packet = read();
        assertThat(packet.sequenceId()).isEqualTo(250);
        assertThat(packet.lastSequenceId()).isEqualTo((int) ((250 + Packets.frameCount(length) - 1) & 0xFF));
        assertThat(packet.nextSequenceId()).isEqualTo((int) ((250 + Packets.frameCount(length)) & 0xFF));
        assertThat(packet.payload().readableBytes()).isEqualTo(length);
        assertSameBytes(packet.payload(), payload);
        assertThat(packet.moreFollows()).isFalse();
        packet.release();
        assertThat(packet.refCnt()).isZero();
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void physicalModeEmitsEveryFrameWithContinuationFlags() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(Long.MAX_VALUE, PacketFrameDecoder.Mode.PHYSICAL));
        ByteBuf payload = pattern(2 * MAX);
        channel.writeInbound(framed(0, payload));
        Packet first = read();
        Packet second = read();
        Packet last = read();
        assertThat(List.of(first.continuation(), first.moreFollows())).containsExactly(false, true);
        assertThat(List.of(second.continuation(), second.moreFollows())).containsExactly(true, true);
        assertThat(List.of(last.continuation(), last.moreFollows())).containsExactly(true, false);
        assertThat(last.payload().isReadable()).isFalse();
        assertThat(List.of(first.sequenceId(), second.sequenceId(), last.sequenceId())).containsExactly(0, 1, 2);
        assertSameBytes(first.payload(), payload.slice(0, MAX));
        first.release();
        second.release();
        last.release();
        // The next packet is a fresh one again.
        channel.writeInbound(framed(3, pattern(1)));
        Packet next = read();
        assertThat(next.continuation()).isFalse();
        next.release();
    }

    @Test
    void encoderWritesWhatTheDecoderReads() {
        EmbeddedChannel out = new EmbeddedChannel(PacketEncoder.INSTANCE);
        channel = new EmbeddedChannel(new PacketFrameDecoder(64L << 20));
        ByteBuf payload = pattern(MAX + 7);
        out.writeOutbound(new Packet(9, payload.retainedDuplicate()));
        ByteBuf chunk;
        while ((chunk = out.readOutbound()) != null) {
            channel.writeInbound(chunk);
        }
        Packet packet = read();
        assertThat(packet.sequenceId()).isEqualTo(9);
        assertThat(packet.lastSequenceId()).isEqualTo(10);
        assertSameBytes(packet.payload(), payload);
        packet.release();
        assertThat(out.finishAndReleaseAll()).isFalse();
    }

    @Test
    void encoderForwardsPhysicalFramesAsTheyAre() {
        EmbeddedChannel in = new EmbeddedChannel(new PacketFrameDecoder(Long.MAX_VALUE, PacketFrameDecoder.Mode.PHYSICAL));
        EmbeddedChannel out = new EmbeddedChannel(PacketEncoder.INSTANCE);
        ByteBuf payload = pattern(MAX);
        ByteBuf wire = framed(4, payload);
        ByteBuf expected = wire.copy();
        in.writeInbound(wire);
        Packet p;
        while ((p = in.readInbound()) != null) {
            out.writeOutbound(p);
        }
        ByteBuf written = ByteBufAllocator.DEFAULT.buffer();
        ByteBuf chunk;
        while ((chunk = out.readOutbound()) != null) {
            written.writeBytes(chunk);
            chunk.release();
        }
        assertSameBytes(written, expected);
        written.release();
        expected.release();
        in.finishAndReleaseAll();
        out.finishAndReleaseAll();
    }

    @Test
    void oversizedPacketIsRejectedFromItsHeaderAlone() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(100));
        ByteBuf header = ByteBufAllocator.DEFAULT.buffer();
        Packets.writeHeader(header, 101, 0);
        assertThatThrownBy(() -> channel.writeInbound(header))
                .isInstanceOf(PacketTooLargeException.class)
                .satisfies(e -> assertThat(((PacketTooLargeException) e).limit()).isEqualTo(100))
                .satisfies(e -> assertThat(((PacketTooLargeException) e).size()).isEqualTo(101));
        // Whatever follows is discarded, not decoded.
        channel.writeInbound(framed(1, pattern(3)));
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void packetAtTheLimitPasses() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(100));
        channel.writeInbound(framed(0, pattern(100)));
        read().release();
    }

    @Test
    void oversizedJoinedPacketReleasesWhatWasCollected() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(MAX + 10L));
        ByteBuf wire = framed(0, pattern(MAX + 11));
        ByteBuf firstFrame = wire.readRetainedSlice(4 + MAX);
        channel.writeInbound(firstFrame);
        assertThat(channel.<Object>readInbound()).isNull();
        assertThatThrownBy(() -> channel.writeInbound(wire)).isInstanceOf(PacketTooLargeException.class);
    }

    @Test
    void limitAppliesToLogicalSizeInPhysicalModeToo() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(MAX + 10L, PacketFrameDecoder.Mode.PHYSICAL));
        channel.writeInbound(framed(0, pattern(MAX + 10)));
        read().release();
        read().release();
        assertThatThrownBy(() -> channel.writeInbound(framed(0, pattern(MAX + 11))))
                .isInstanceOf(PacketTooLargeException.class);
        Packet partial = channel.readInbound();
        if (partial != null) {
            partial.release();
        }
    }

    @Test
    void removingTheDecoderMidPacketReleasesTheJoinedFrames() {
        PacketFrameDecoder decoder = new PacketFrameDecoder(64L << 20);
        channel = new EmbeddedChannel(decoder);
        ByteBuf wire = framed(0, pattern(MAX + 5));
        channel.writeInbound(wire.readRetainedSlice(4 + MAX + 2));
        wire.release();
        channel.pipeline().remove(decoder);
        ByteBuf leftover = channel.readInbound();
        if (leftover != null) {
            leftover.release();
        }
    }

    @Test
    void closingMidPacketReleasesEverything() {
        channel = new EmbeddedChannel(new PacketFrameDecoder(64L << 20));
        ByteBuf wire = framed(0, pattern(2 * MAX + 5));
        channel.writeInbound(wire.readRetainedSlice(4 + MAX + 4 + MAX + 2));
        wire.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
        channel = null;
    }

    @Test
    void limitCanBeRaisedAfterTheHandshake() {
        PacketFrameDecoder decoder = new PacketFrameDecoder(10);
        decoder.maxPayloadSize(1000);
        assertThat(decoder.maxPayloadSize()).isEqualTo(1000);
        assertThat(decoder.mode()).isEqualTo(PacketFrameDecoder.Mode.LOGICAL);
        assertThat(new PacketFrameDecoder(Long.MAX_VALUE).maxPayloadSize()).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(() -> decoder.maxPayloadSize(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void packetIsAByteBufHolder() {
        ByteBuf payload = pattern(3);
        Packet packet = new Packet(1, payload.retain());
        Packet dup = packet.retainedDuplicate();
        assertThat(dup.sequenceId()).isEqualTo(1);
        assertSameBytes(dup.content(), payload);
        assertThat(packet.refCnt()).isEqualTo(3);
        dup.release();
        Packet copy = packet.copy();
        assertSameBytes(copy.payload(), payload);
        copy.release();
        assertThat(packet.touch("x").retain(1).release(2)).isFalse();
        assertThat(packet.duplicate().replace(payload).toString()).contains("seq=1", "length=3");
    }
}
