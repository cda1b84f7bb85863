package dev.sluice.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Golden.Frame;
import dev.sluice.protocol.packet.Packet;
import dev.sluice.protocol.packet.PacketFrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every captured conversation, each direction as one byte stream, split back into its frames. */
@ExtendWith(NoLeaks.class)
class GoldenFramingTest {

    @ParameterizedTest
    @ValueSource(strings = {"login-native.hex", "cli-session.hex", "auth-switch.hex", "err-access-denied.hex",
        "ok-last-gtid.hex", "ok-last-gtid-wide-schema.hex", "ok-session-state.hex", "ok-info-session-track.hex", "ok-info-no-session-track.hex",
        "err-no-such-table.hex", "resultset-eof.hex", "resultset-deprecate-eof.hex", "multi-result-deprecate-eof.hex",
        "prepare-eof.hex", "prepare-deprecate-eof.hex", "resultset-mariadb-extended.hex"})
    void framesComeBackAsCaptured(String file) {
        for (char direction : new char[] {'<', '>'}) {
            List<Frame> frames = Golden.frames(file).stream().filter(f -> f.direction() == direction).toList();
            for (PacketFrameDecoder.Mode mode : PacketFrameDecoder.Mode.values()) {
                EmbeddedChannel channel = new EmbeddedChannel(new PacketFrameDecoder(1 << 20, mode));
                // The whole stream in 3-byte pieces: every header gets cut somewhere.
                ByteBuf stream = ByteBufAllocator.DEFAULT.buffer();
                frames.forEach(f -> stream.writeBytes(f.wire()));
                while (stream.isReadable()) {
                    channel.writeInbound(stream.readRetainedSlice(Math.min(3, stream.readableBytes())));
                }
                stream.release();
                List<Packet> packets = new ArrayList<>();
                Packet p;
                while ((p = channel.readInbound()) != null) {
                    packets.add(p);
                }
                assertThat(packets).hasSize(frames.size());
                for (int i = 0; i < frames.size(); i++) {
                    assertThat(packets.get(i).sequenceId()).isEqualTo(frames.get(i).sequenceId());
                    assertThat(ByteBufUtil.getBytes(packets.get(i).payload())).isEqualTo(frames.get(i).payload());
                    packets.get(i).release();
                }
                assertThat(channel.finishAndReleaseAll()).isFalse();
            }
        }
    }
}
