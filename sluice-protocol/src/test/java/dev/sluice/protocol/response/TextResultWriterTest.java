package dev.sluice.protocol.response;

import static dev.sluice.protocol.Capabilities.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.NoLeaks;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packet;
import dev.sluice.protocol.packet.PacketFrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(NoLeaks.class)
class TextResultWriterTest {
    static final long CAPS = CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS;

    /** Writes, then reads back through the frame decoder: payloads in order, sequence ids checked. */
    static List<byte[]> writeAndFrame(long caps, int firstSeq, List<String> columns, List<List<String>> rows,
            int expectedPackets) {
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        int next = TextResultWriter.write(out, firstSeq, caps, ServerStatus.AUTOCOMMIT, columns, rows);
        assertThat(next).isEqualTo((firstSeq + expectedPackets) & 0xFF);
        EmbeddedChannel channel = new EmbeddedChannel(new PacketFrameDecoder(1 << 20));
        channel.writeInbound(out);
        List<byte[]> payloads = new ArrayList<>();
        Packet packet;
        int seq = firstSeq;
        while ((packet = channel.readInbound()) != null) {
            assertThat(packet.sequenceId()).isEqualTo(seq & 0xFF);
            byte[] bytes = new byte[packet.payload().readableBytes()];
            packet.payload().readBytes(bytes);
            payloads.add(bytes);
            packet.release();
            seq++;
        }
        assertThat(channel.finishAndReleaseAll()).isFalse();
        assertThat(payloads).hasSize(expectedPackets);
        return payloads;
    }

    static ByteBuf wrap(byte[] bytes) {
        return io.netty.buffer.Unpooled.wrappedBuffer(bytes);
    }

    @Test
    void withEofPackets() {
        List<byte[]> p = writeAndFrame(CAPS, 1, List.of("sluice_last_gtid()"), List.of(List.of("0-1-42")), 5);
        assertThat(ColumnCount.decode(wrap(p.get(0)), CAPS).count()).isEqualTo(1);
        ColumnDefinition def = ColumnDefinition.decode(wrap(p.get(1)), CAPS);
        assertThat(def.name()).isEqualTo("sluice_last_gtid()");
        assertThat(def.type()).isEqualTo(ColumnDefinition.TYPE_VAR_STRING);
        assertThat(EofPacket.isEof(wrap(p.get(2)))).isTrue();
        assertThat(LengthEncoded.readString(wrap(p.get(3)), "v")).isEqualTo("0-1-42");
        assertThat(EofPacket.decode(wrap(p.get(4)), CAPS)).isEqualTo(new EofPacket(0, ServerStatus.AUTOCOMMIT));
    }

    @Test
    void withDeprecateEofAndNulls() {
        long caps = CAPS | CLIENT_DEPRECATE_EOF | CLIENT_SESSION_TRACK;
        List<List<String>> rows = List.of(Arrays.asList("a", null), Arrays.asList(null, "ü".repeat(300)));
        List<byte[]> p = writeAndFrame(caps, 255, List.of("x", "y"), rows, 6);
        assertThat(ColumnCount.decode(wrap(p.get(0)), caps).count()).isEqualTo(2);
        assertThat(ColumnDefinition.decode(wrap(p.get(2)), caps).columnLength()).isEqualTo(1200);
        ByteBuf second = wrap(p.get(4));
        assertThat(LengthEncoded.readNullableString(second, StandardCharsets.UTF_8, "x")).isEmpty();
        assertThat(LengthEncoded.readNullableString(second, StandardCharsets.UTF_8, "y")).contains("ü".repeat(300));
        ByteBuf end = wrap(p.get(5));
        assertThat(EofPacket.isResultSetEnd(end, caps)).isTrue();
        assertThat(OkPacket.decode(end, caps)).isEqualTo(OkPacket.of(ServerStatus.AUTOCOMMIT));
    }

    @Test
    void mariaDbMetadataCapabilitiesAreHonoured() {
        long caps = CAPS | CLIENT_DEPRECATE_EOF | MARIADB_CLIENT_CACHE_METADATA | MARIADB_CLIENT_EXTENDED_TYPE_INFO;
        List<byte[]> p = writeAndFrame(caps, 1, List.of("a"), List.of(), 3);
        assertThat(ColumnCount.decode(wrap(p.get(0)), caps)).isEqualTo(new ColumnCount(1, true));
        ColumnDefinition def = ColumnDefinition.decode(wrap(p.get(1)), caps);
        assertThat(def.extendedType()).isEqualTo(Optional.empty());
        assertThat(def.name()).isEqualTo("a");
    }

    @Test
    void badShapesAreRefused() {
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        try {
            assertThatThrownBy(() -> TextResultWriter.write(out, 1, CAPS, 0, List.of(), List.of()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> TextResultWriter.write(out, 1, CAPS, 0, List.of("a"), List.of(List.of("1", "2"))))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            out.release();
        }
    }

    @Test
    void okAndErrCarryTheirSequenceIds() {
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        int next = OkPacket.of(ServerStatus.AUTOCOMMIT).encode(out, 1, CAPS);
        next = new ErrPacket(ErrorCodes.ER_UNKNOWN_ERROR, "HY000", "endpoint 'reports' is read-only").encode(out, next, CAPS);
        assertThat(next).isEqualTo(3);
        EmbeddedChannel channel = new EmbeddedChannel(new PacketFrameDecoder(1 << 20));
        channel.writeInbound(out);
        Packet ok = channel.readInbound();
        Packet err = channel.readInbound();
        assertThat(ok.sequenceId()).isEqualTo(1);
        assertThat(OkPacket.decode(ok.payload(), CAPS).statusFlags()).isEqualTo(ServerStatus.AUTOCOMMIT);
        assertThat(err.sequenceId()).isEqualTo(2);
        assertThat(ErrPacket.decode(err.payload()).message()).isEqualTo("endpoint 'reports' is read-only");
        ok.release();
        err.release();
        channel.finishAndReleaseAll();
    }
}
