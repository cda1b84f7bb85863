package dev.sluice.protocol.packet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.NoLeaks;
import java.util.Arrays;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(NoLeaks.class)
class PacketsTest {
    static final int MAX = Packets.MAX_PAYLOAD;

    @Test
    void smallPacketHasOneHeader() {
        ByteBuf out = Unpooled.buffer();
        int next = Packets.writePacket(out, 7, new byte[] {3, 'x'});
        assertThat(next).isEqualTo(8);
        assertThat(out.readableBytes()).isEqualTo(6);
        assertThat(Packets.payloadLength(out, 0)).isEqualTo(2);
        assertThat(Packets.sequenceId(out, 0)).isEqualTo(7);
    }

    @Test
    void emptyPayloadIsOneEmptyFrame() {
        ByteBuf out = Unpooled.buffer();
        assertThat(Packets.writePacket(out, 0, new byte[0])).isEqualTo(1);
        assertThat(out.readableBytes()).isEqualTo(4);
    }

    @Test
    void sequenceIdsWrap() {
        ByteBuf out = Unpooled.buffer();
        assertThat(Packets.writePacket(out, 255, Unpooled.wrappedBuffer(new byte[] {1}))).isZero();
        assertThat(Packets.sequenceId(out, 0)).isEqualTo(255);
    }

    /** Lengths: just under, exact, one over, twice exact, twice plus some. */
    @ParameterizedTest
    @ValueSource(ints = {MAX - 1, MAX, MAX + 1, 2 * MAX, 2 * MAX + 10})
    void largePayloadsAreSplitWithTrailingEmptyFrameOnExactMultiples(int length) {
        byte[] bytes = pattern(length);
        // Bulk operations only: with paranoid leak detection every access to a pooled buffer is recorded.
        ByteBuf payload = ByteBufAllocator.DEFAULT.buffer(length).writeBytes(bytes);
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer((int) Packets.framedSize(length));
        try {
            int next = Packets.writePacket(out, 254, payload);
            long frames = Packets.frameCount(length);
            assertThat(next).isEqualTo((int) ((254 + frames) & 0xFF));
            assertThat(out.readableBytes()).isEqualTo((int) Packets.framedSize(length));
            assertThat(payload.isReadable()).isFalse();
            byte[] wire = ByteBufUtil.getBytes(out);
            assertFrames(wire, 254, bytes);
            // The array variant writes the same bytes.
            ByteBuf fromArray = Unpooled.buffer(wire.length);
            assertThat(Packets.writePacket(fromArray, 254, bytes)).isEqualTo(next);
            assertThat(fromArray.array()).isEqualTo(wire);
        } finally {
            payload.release();
            out.release();
        }
    }

    /** Walks the frames: all full but the last, which is shorter (possibly empty). */
    static void assertFrames(byte[] wire, int firstSeq, byte[] payload) {
        ByteBuf in = Unpooled.wrappedBuffer(wire);
        long frames = Packets.frameCount(payload.length);
        int index = 0;
        int seq = firstSeq;
        int joined = 0;
        for (long f = 0; f < frames; f++) {
            int frameLength = Packets.payloadLength(in, index);
            assertThat(Packets.sequenceId(in, index)).isEqualTo(seq);
            assertThat(frameLength).isEqualTo(f < frames - 1 ? MAX : payload.length - joined);
            assertThat(Arrays.equals(wire, index + 4, index + 4 + frameLength, payload, joined, joined + frameLength))
                    .isTrue();
            joined += frameLength;
            index += 4 + frameLength;
            seq = (seq + 1) & 0xFF;
        }
        assertThat(index).isEqualTo(wire.length);
        assertThat(joined).isEqualTo(payload.length);
    }

    static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i % 251);
        }
        return bytes;
    }

    @Test
    void beginAndEndPacketFillTheHeader() {
        ByteBuf out = Unpooled.buffer();
        out.writeByte(0x42);
        int start = Packets.beginPacket(out);
        out.writeBytes(new byte[] {1, 2, 3});
        assertThat(Packets.endPacket(out, start, 3)).isEqualTo(4);
        assertThat(Packets.payloadLength(out, 1)).isEqualTo(3);
        assertThat(Packets.sequenceId(out, 1)).isEqualTo(3);
        assertThat(out.readableBytes()).isEqualTo(1 + 4 + 3);
    }

    @Test
    void endPacketReframesAPayloadOfExactlyMax() {
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        try {
            int start = Packets.beginPacket(out);
            out.writeZero(MAX);
            assertThat(Packets.endPacket(out, start, 9)).isEqualTo(11);
            assertThat(out.readableBytes()).isEqualTo(MAX + 8);
            assertThat(Packets.payloadLength(out, 0)).isEqualTo(MAX);
            assertThat(Packets.payloadLength(out, MAX + 4)).isZero();
            assertThat(Packets.sequenceId(out, MAX + 4)).isEqualTo(10);
        } finally {
            out.release();
        }
    }

    @Test
    void frameArithmetic() {
        assertThat(Packets.frameCount(0)).isEqualTo(1);
        assertThat(Packets.frameCount(MAX - 1)).isEqualTo(1);
        assertThat(Packets.frameCount(MAX)).isEqualTo(2);
        assertThat(Packets.frameCount(3L * MAX + 1)).isEqualTo(4);
        assertThat(Packets.framedSize(MAX)).isEqualTo(MAX + 8L);
    }
}
