package dev.sluice.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FieldsTest {
    @Test
    void fixedIntegersAreLittleEndianAndUnsigned() {
        ByteBuf in = Unpooled.wrappedBuffer(new byte[] {
            (byte) 0xff, 0x01, 0x02, 0x01, 0x02, 0x03, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
            1, 0, 0, 0, 0, 0, 0, (byte) 0x80});
        assertThat(Fields.readInt1(in, "a")).isEqualTo(0xff);
        assertThat(Fields.readInt2(in, "b")).isEqualTo(0x0201);
        assertThat(Fields.readInt3(in, "c")).isEqualTo(0x030201);
        assertThat(Fields.readInt4(in, "d")).isEqualTo(0xFFFF_FFFFL);
        assertThat(Fields.readInt8(in, "e")).isEqualTo(Long.MIN_VALUE + 1);
    }

    @Test
    void truncatedFieldsNameWhatIsMissing() {
        ByteBuf in = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        assertThatThrownBy(() -> Fields.readInt4(in, "connection id"))
                .isInstanceOf(MalformedPacketException.class)
                .hasMessage("connection id: needs 4 bytes, packet has 3 left");
        assertThatThrownBy(() -> Fields.readInt8(in, "x")).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> Fields.readFixed(in, 4, "x")).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> Fields.skip(in, 4, "x")).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> Fields.require(in, -1, "x")).isInstanceOf(MalformedPacketException.class);
        assertThat(Fields.readInt3(in, "x")).isEqualTo(0x030201);
        assertThatThrownBy(() -> Fields.readInt1(in, "x")).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> Fields.readInt2(in, "x")).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> Fields.readInt3(in, "x")).isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void nulTerminatedStrings() {
        ByteBuf out = Unpooled.buffer();
        Fields.writeNulString(out, "root", StandardCharsets.UTF_8);
        Fields.writeNulBytes(out, new byte[0]);
        out.writeBytes("tail".getBytes(StandardCharsets.UTF_8));
        assertThat(Fields.readNulString(out, StandardCharsets.UTF_8, "user")).isEqualTo("root");
        assertThat(Fields.readNulBytes(out, "empty")).isEmpty();
        assertThatThrownBy(() -> Fields.readNulString(out, StandardCharsets.UTF_8, "db"))
                .isInstanceOf(MalformedPacketException.class)
                .hasMessage("db: NUL terminator missing");
        assertThat(Fields.readRestString(out, StandardCharsets.UTF_8)).isEqualTo("tail");
        assertThat(Fields.readRestBytes(out)).isEmpty();
        assertThatThrownBy(() -> Fields.writeNulBytes(Unpooled.buffer(), new byte[] {'a', 0}))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
