package dev.sluice.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.protocol.handshake.AuthMoreData;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.handshake.SslRequest;
import dev.sluice.protocol.response.ColumnCount;
import dev.sluice.protocol.response.ColumnDefinition;
import dev.sluice.protocol.response.EofPacket;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.response.PrepareOk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Mutated and truncated real packets, fed to every decoder: each must either decode or throw
 * {@link MalformedPacketException} — never IndexOutOfBounds, NullPointer or anything else.
 */
class MalformedInputFuzzTest {
    private static final int ROUNDS = 4000;
    private static final long[] CAPS = {
        0,
        Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_TRANSACTIONS,
        Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SESSION_TRACK | Capabilities.CLIENT_DEPRECATE_EOF
                | Capabilities.MARIADB_CLIENT_EXTENDED_TYPE_INFO | Capabilities.MARIADB_CLIENT_CACHE_METADATA
                | Capabilities.CLIENT_OPTIONAL_RESULTSET_METADATA,
    };

    private static List<Consumer<ByteBuf>> decoders() {
        List<Consumer<ByteBuf>> decoders = new ArrayList<>(List.of(
                HandshakeV10::decode, HandshakeResponse41::decode, SslRequest::decode, AuthSwitchRequest::decode,
                AuthMoreData::decode, ErrPacket::decode, PrepareOk::decode, PrepareOk::statementIdOf,
                in -> LengthEncoded.readString(in, "s"), in -> LengthEncoded.readInteger(in),
                in -> Fields.readNulString(in, StandardCharsets.UTF_8, "s")));
        for (long caps : CAPS) {
            decoders.add(in -> OkPacket.decode(in, caps));
            decoders.add(in -> OkPacket.statusFlagsOf(in, caps));
            decoders.add(in -> OkPacket.sessionTrackedVariable(in, caps, "last_gtid"));
            decoders.add(in -> EofPacket.decode(in, caps));
            decoders.add(in -> ColumnCount.decode(in, caps));
            decoders.add(in -> ColumnDefinition.decode(in, caps));
        }
        return decoders;
    }

    private static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        for (String file : List.of("login-native.hex", "cli-session.hex", "auth-switch.hex", "ok-last-gtid.hex",
                "ok-session-state.hex", "resultset-mariadb-extended.hex", "prepare-eof.hex", "err-no-such-table.hex")) {
            Golden.frames(file).forEach(f -> seeds.add(f.payload()));
        }
        return seeds;
    }

    @Test
    void everyDecoderFailsOnlyWithMalformedPacketException() {
        Random random = new Random(20261129);
        List<byte[]> seeds = seeds();
        List<Consumer<ByteBuf>> decoders = decoders();
        for (int round = 0; round < ROUNDS; round++) {
            byte[] input = mutate(seeds.get(random.nextInt(seeds.size())), random);
            for (Consumer<ByteBuf> decoder : decoders) {
                Throwable thrown = catchThrowable(() -> decoder.accept(Unpooled.wrappedBuffer(input)));
                if (thrown != null && !(thrown instanceof MalformedPacketException)) {
                    throw new AssertionError("round " + round + ": " + io.netty.buffer.ByteBufUtil.hexDump(input), thrown);
                }
            }
        }
        assertThat(decoders).hasSizeGreaterThan(20);
    }

    private static byte[] mutate(byte[] seed, Random random) {
        byte[] out = seed.clone();
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips && out.length > 0; i++) {
            int at = random.nextInt(out.length);
            // Favour the bytes that make lengths huge or impossible.
            int[] nasty = {0x00, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF, random.nextInt(256)};
            out[at] = (byte) nasty[random.nextInt(nasty.length)];
        }
        if (random.nextBoolean() && out.length > 0) {
            out = java.util.Arrays.copyOf(out, random.nextInt(out.length));
        }
        return out;
    }
}
