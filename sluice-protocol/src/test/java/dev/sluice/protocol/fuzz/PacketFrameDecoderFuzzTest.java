package dev.sluice.protocol.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.protocol.NoLeaks;
import dev.sluice.protocol.packet.Packet;
import dev.sluice.protocol.packet.PacketFrameDecoder;
import dev.sluice.protocol.packet.PacketTooLargeException;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The frame decoder fed an arbitrary byte stream, in arbitrary chunks, in both modes and under
 * limits from none to everything: it emits the same packets whatever the chunking, exactly the
 * frames the stream holds, fails with nothing but {@link PacketTooLargeException}, and leaves no
 * buffer unreleased once the channel closes.
 *
 * <p>Input: one byte of settings (bit 0 the mode, bits 1–3 the limit from {@link #LIMITS}), one
 * byte seeding the random chunking, then the stream.
 */
@ExtendWith(NoLeaks.class)
class PacketFrameDecoderFuzzTest {
    private static final long[] LIMITS = {0, 1, 4, 16, 64, 1024, Packets.MAX_PAYLOAD, Long.MAX_VALUE};
    /** Chunks this small split every header in every possible way. */
    private static final int TINY_CHUNK = 3;
    private static final int SMALL_CHUNK = 17;

    private final AccountedAllocator allocator = new AccountedAllocator();

    /** One emitted packet, copied out so that it can be released at once and compared later. */
    private record Emitted(int sequenceId, String payload, int lastSequenceId, boolean continuation,
                           boolean moreFollows) {
    }

    /** What the decoder made of a stream. */
    private record Outcome(List<Emitted> packets, boolean tooLarge) {
    }

    static Stream<byte[]> goldenStreams() {
        return GoldenSeeds.wireStreams().stream().flatMap(s -> Stream.of(
                GoldenSeeds.prefixed(s, 0b1110, 7), GoldenSeeds.prefixed(s, 0b1111, 7),
                GoldenSeeds.prefixed(s, 0b0110, 3)));
    }

    @MethodSource("goldenStreams")
    @FuzzTest(maxDuration = FuzzBudget.PER_TARGET)
    void sameFramesWhateverTheChunking(byte[] input) {
        if (input.length < 2) {
            return;
        }
        PacketFrameDecoder.Mode mode = (input[0] & 1) == 0
                ? PacketFrameDecoder.Mode.LOGICAL : PacketFrameDecoder.Mode.PHYSICAL;
        long limit = LIMITS[(input[0] >> 1) & 7];
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);

        Outcome expected = frames(stream, limit);
        Outcome whole = decode(mode, limit, stream, Chunkings.whole(stream.length));
        require(whole.equals(expected), "whole stream: " + whole + ", the frames are " + expected);
        Outcome tiny = decode(mode, limit, stream, Chunkings.random(stream.length, input[1], TINY_CHUNK));
        require(tiny.equals(expected), "chunks of 1-3 bytes: " + tiny + ", the frames are " + expected);
        Outcome small = decode(mode, limit, stream, Chunkings.random(stream.length, input[1], SMALL_CHUNK));
        require(small.equals(expected), "chunks of 1-17 bytes: " + small + ", the frames are " + expected);
    }

    private Outcome decode(PacketFrameDecoder.Mode mode, long limit, byte[] stream, int[] chunks) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(allocator.allocator());
        channel.pipeline().addLast(new PacketFrameDecoder(limit, mode));
        List<Emitted> packets = new ArrayList<>();
        boolean tooLarge = false;
        try {
            int at = 0;
            for (int chunk : chunks) {
                try {
                    channel.writeInbound(allocator.wrap(stream, at, at + chunk));
                } catch (PacketTooLargeException e) {
                    require(!tooLarge, "a second PacketTooLargeException after discarding");
                    tooLarge = true;
                }
                at += chunk;
                for (Packet p = channel.readInbound(); p != null; p = channel.readInbound()) {
                    try {
                        packets.add(new Emitted(p.sequenceId(), ByteBufUtil.hexDump(p.payload()), p.lastSequenceId(),
                                p.continuation(), p.moreFollows()));
                    } finally {
                        p.release();
                    }
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
        allocator.assertAllReleased();
        return new Outcome(packets, tooLarge);
    }

    /**
     * The frames of {@code stream} read straight off the wire format: what any decoder must emit.
     * Frames of 0xFFFFFF bytes, which would be joined or flagged, need 16 MB of input and are
     * covered by {@code PacketFrameDecoderTest}; here every frame is a packet of its own.
     */
    private static Outcome frames(byte[] stream, long limit) {
        List<Emitted> packets = new ArrayList<>();
        int at = 0;
        while (stream.length - at >= Packets.HEADER_SIZE) {
            int length = (stream[at] & 0xFF) | (stream[at + 1] & 0xFF) << 8 | (stream[at + 2] & 0xFF) << 16;
            int seq = stream[at + 3] & 0xFF;
            if (length > limit) {
                return new Outcome(packets, true);
            }
            if (stream.length - at - Packets.HEADER_SIZE < length) {
                break;
            }
            int start = at + Packets.HEADER_SIZE;
            String payload = HexFormat.of().formatHex(stream, start, start + length);
            packets.add(new Emitted(seq, payload, seq, false, false));
            at += Packets.HEADER_SIZE + length;
        }
        return new Outcome(packets, false);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(Objects.requireNonNull(message));
        }
    }
}
