package dev.sluice.protocol.handshake;

import static dev.sluice.protocol.Capabilities.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.protocol.Golden;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.ServerStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class HandshakeV10Test {
    static final byte[] GREETING = Golden.fromServer("login-native.hex").get(0);

    static byte[] encode(HandshakeV10 h) {
        ByteBuf out = Unpooled.buffer();
        h.encode(out);
        return ByteBufUtil.getBytes(out);
    }

    @Test
    void decodesARealMariaDbGreeting() {
        HandshakeV10 h = HandshakeV10.decode(Unpooled.wrappedBuffer(GREETING));
        assertThat(h.serverVersion()).isEqualTo("5.5.5-10.11.19-MariaDB-0+deb12u1-log");
        assertThat(h.connectionId()).isEqualTo(13);
        assertThat(h.scramble()).hasSize(20);
        assertThat(HexFormat.of().formatHex(h.scramble())).isEqualTo("7544357c317a3845" + "3268387b29534a55506d5648");
        assertThat(isMariaDb(h.capabilities())).isTrue();
        assertThat(has(h.capabilities(), CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH
                | CLIENT_SESSION_TRACK | CLIENT_DEPRECATE_EOF | CLIENT_CONNECT_ATTRS | CLIENT_SSL)).isFalse();
        assertThat(has(h.capabilities(), CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH
                | CLIENT_SESSION_TRACK | CLIENT_DEPRECATE_EOF | CLIENT_CONNECT_ATTRS)).isTrue();
        assertThat(extendedBits(h.capabilities())).isEqualTo(0x1D);
        assertThat(has(h.capabilities(), MARIADB_CLIENT_CACHE_METADATA)).isTrue();
        assertThat(h.collation()).isEqualTo(8);
        assertThat(h.statusFlags()).isEqualTo(ServerStatus.AUTOCOMMIT);
        assertThat(h.authPluginName()).isEqualTo("mysql_native_password");
    }

    @Test
    void reEncodesTheRealGreetingByteForByte() {
        HandshakeV10 h = HandshakeV10.decode(Unpooled.wrappedBuffer(GREETING));
        assertThat(encode(h)).isEqualTo(GREETING);
        assertThat(HandshakeV10.decode(Unpooled.wrappedBuffer(encode(h)))).isEqualTo(h);
    }

    @Test
    void mysqlGreetingIgnoresTheReservedBytes() {
        long caps = CLIENT_MYSQL | CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH;
        HandshakeV10 h = new HandshakeV10("8.0.36", 0xFFFF_FFFFL, new byte[20], caps, 255, 2, "caching_sha2_password");
        byte[] wire = encode(h);
        // Garbage in the reserved bytes must not leak into the capabilities of a MySQL server.
        int reserved = 1 + "8.0.36".length() + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 6;
        wire[reserved] = 0x7F;
        HandshakeV10 back = HandshakeV10.decode(Unpooled.wrappedBuffer(wire));
        assertThat(back.capabilities()).isEqualTo(caps);
        assertThat(back.connectionId()).isEqualTo(0xFFFF_FFFFL);
        assertThat(back.collation()).isEqualTo(255);
    }

    @Test
    void roundTripsWithoutPluginAuth() {
        long caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | MARIADB_CLIENT_PROGRESS;
        byte[] scramble = "abcdefghijklmnopqrst".getBytes();
        HandshakeV10 h = new HandshakeV10("5.5.5-10.6.1-MariaDB", 42, scramble, caps, 45, 0, "");
        assertThat(HandshakeV10.decode(Unpooled.wrappedBuffer(encode(h)))).isEqualTo(h);
    }

    @Test
    void authDataLengthMeansNothingWithoutPluginAuth() {
        // Without CLIENT_PLUGIN_AUTH the auth-data length byte means nothing: the scramble stays the 20 bytes sent.
        long caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_MYSQL;
        byte[] scramble = "abcdefghijklmnopqrst".getBytes();
        byte[] wire = encode(new HandshakeV10("8.0.0", 7, scramble, caps, 45, 0, ""));
        int authDataLength = 1 + "8.0.0".length() + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2;
        assertThat(wire[authDataLength]).isZero();
        wire[authDataLength] = 30;
        HandshakeV10 h = HandshakeV10.decode(Unpooled.wrappedBuffer(wire));
        assertThat(h.scramble()).isEqualTo(scramble);
        assertThat(HandshakeV10.decode(Unpooled.wrappedBuffer(encode(h)))).isEqualTo(h);
    }

    @Test
    void scrambleIsCopiedDefensively() {
        byte[] scramble = new byte[20];
        HandshakeV10 h = new HandshakeV10("v", 1, scramble, CLIENT_PROTOCOL_41, 8, 0, "");
        scramble[0] = 1;
        h.scramble()[1] = 1;
        assertThat(h.scramble()).containsOnly(0);
        assertThat(h.toString()).doesNotContain("scramble=");
        assertThatThrownBy(() -> new HandshakeV10("v", 1, new byte[7], 0, 8, 0, ""))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pluginNameWithoutNulFromOldServersIsAccepted() {
        byte[] wire = Arrays.copyOf(GREETING, GREETING.length - 1);
        assertThat(HandshakeV10.decode(Unpooled.wrappedBuffer(wire)).authPluginName()).isEqualTo("mysql_native_password");
    }

    @Test
    void everyTruncationIsMalformed() {
        // Up to the end of scramble part 2; after that only the plugin name, which is lenient.
        int end = GREETING.length - "mysql_native_password".length() - 1;
        for (int length = 0; length < end; length++) {
            byte[] truncated = Arrays.copyOf(GREETING, length);
            assertThatThrownBy(() -> HandshakeV10.decode(Unpooled.wrappedBuffer(truncated)))
                    .as("length %d", length)
                    .isInstanceOf(MalformedPacketException.class);
        }
    }

    @Test
    void otherProtocolVersionsAndErrorsAreRejected() {
        byte[] v9 = GREETING.clone();
        v9[0] = 9;
        assertThatThrownBy(() -> HandshakeV10.decode(Unpooled.wrappedBuffer(v9)))
                .isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("version 9");
        byte[] err = HexFormat.of().parseHex("ff10045469");
        assertThatThrownBy(() -> HandshakeV10.decode(Unpooled.wrappedBuffer(err)))
                .isInstanceOf(MalformedPacketException.class);
    }
}
