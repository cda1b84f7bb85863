package dev.sluice.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class LengthEncodedTest {

    private static ByteBuf hex(String hex) {
        return Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex));
    }

    @ParameterizedTest
    @CsvSource({
        "0, 00", "250, fa", "251, fc fb00", "65535, fc ffff", "65536, fd 000001",
        "16777215, fd ffffff", "16777216, fe 0000000100000000", "9223372036854775807, fe ffffffffffffff7f",
        "-1, fe ffffffffffffffff",
    })
    void integersRoundTripWithTheShortestForm(long value, String wire) {
        ByteBuf out = Unpooled.buffer();
        LengthEncoded.writeInteger(out, value);
        assertThat(HexFormat.of().formatHex(out.array(), 0, out.writerIndex())).isEqualTo(wire.replace(" ", ""));
        assertThat(LengthEncoded.sizeOf(value)).isEqualTo(out.readableBytes());
        assertThat(LengthEncoded.getIntegerAt(out, 0)).isEqualTo(value);
        assertThat(LengthEncoded.encodedSizeAt(out, 0)).isEqualTo(out.readableBytes());
        assertThat(out.readerIndex()).isZero();
        assertThat(LengthEncoded.readInteger(out)).isEqualTo(value);
        assertThat(out.isReadable()).isFalse();
    }

    @Test
    void stringsRoundTrip() {
        ByteBuf out = Unpooled.buffer();
        String long300 = "x".repeat(300);
        LengthEncoded.writeString(out, "héllo");
        LengthEncoded.writeString(out, "");
        LengthEncoded.writeString(out, long300);
        LengthEncoded.writeBytes(out, new byte[] {1, 2, 3});
        LengthEncoded.writeBytes(out, Unpooled.wrappedBuffer(new byte[] {9}));
        LengthEncoded.writeNull(out);
        assertThat(LengthEncoded.readString(out, "a")).isEqualTo("héllo");
        assertThat(LengthEncoded.readNullableString(out, StandardCharsets.UTF_8, "b")).contains("");
        assertThat(LengthEncoded.readString(out, StandardCharsets.US_ASCII, "c")).isEqualTo(long300);
        assertThat(LengthEncoded.readBytes(out, "d")).containsExactly(1, 2, 3);
        assertThat(LengthEncoded.readSlice(out, "e").readByte()).isEqualTo((byte) 9);
        assertThat(LengthEncoded.isNull(out)).isTrue();
        assertThat(LengthEncoded.readNullableString(out, StandardCharsets.UTF_8, "f")).isEmpty();
        assertThat(out.isReadable()).isFalse();
        assertThat(LengthEncoded.sizeOfString(300)).isEqualTo(303);
    }

    @Test
    void skipString() {
        ByteBuf in = hex("03616263ff");
        LengthEncoded.skipString(in, "s");
        assertThat(in.readUnsignedByte()).isEqualTo((short) 0xff);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "fb", "ff", "fc", "fc01", "fd0102", "fe01020304050607"})
    void malformedIntegersAreReported(String wire) {
        assertThatThrownBy(() -> LengthEncoded.readInteger(hex(wire)))
                .isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("length-encoded integer");
    }

    @ParameterizedTest
    @ValueSource(strings = {"05616263", "fc0001", "fd010000", "feffffffffffffffff41", "fe000000000000008041"})
    void lengthsBeyondThePacketAreReported(String wire) {
        assertThatThrownBy(() -> LengthEncoded.readString(hex(wire), "name"))
                .isInstanceOf(MalformedPacketException.class)
                .hasMessageStartingWith("name: length");
        assertThatThrownBy(() -> LengthEncoded.readBytes(hex(wire), "name")).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> LengthEncoded.readSlice(hex(wire), "name")).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> LengthEncoded.skipString(hex(wire), "name")).isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void prefixSizes() {
        assertThat(LengthEncoded.prefixSize(0)).isEqualTo(1);
        assertThat(LengthEncoded.prefixSize(0xFA)).isEqualTo(1);
        assertThat(LengthEncoded.prefixSize(0xFB)).isEqualTo(-1);
        assertThat(LengthEncoded.prefixSize(0xFC)).isEqualTo(3);
        assertThat(LengthEncoded.prefixSize(0xFD)).isEqualTo(4);
        assertThat(LengthEncoded.prefixSize(0xFE)).isEqualTo(9);
        assertThat(LengthEncoded.prefixSize(0xFF)).isEqualTo(-1);
    }
}
