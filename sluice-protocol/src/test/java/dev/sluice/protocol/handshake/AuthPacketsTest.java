package dev.sluice.protocol.handshake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.protocol.Golden;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class AuthPacketsTest {
    @Test
    void decodesAndReEncodesTheServersAuthSwitch() {
        byte[] wire = Golden.fromServer("auth-switch.hex").get(1);
        AuthSwitchRequest request = AuthSwitchRequest.decode(Unpooled.wrappedBuffer(wire));
        assertThat(request.pluginName()).isEqualTo("mysql_native_password");
        assertThat(request.pluginData()).hasSize(21).endsWith(0);
        assertThat(request.seed()).hasSize(20);
        // The server switches with the greeting's own seed.
        HandshakeV10 greeting = HandshakeV10.decode(Unpooled.wrappedBuffer(Golden.fromServer("auth-switch.hex").get(0)));
        assertThat(request.seed()).isEqualTo(greeting.scramble());
        ByteBuf out = Unpooled.buffer();
        request.encode(out);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(wire);
        assertThat(AuthSwitchRequest.withSeed("mysql_native_password", request.seed())).isEqualTo(request);
        assertThat(request.toString()).contains("21 bytes");
    }

    @Test
    void loneFeIsTheOldPasswordSwitch() {
        AuthSwitchRequest old = AuthSwitchRequest.decode(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFE}));
        assertThat(old.pluginName()).isEqualTo(AuthSwitchRequest.OLD_PASSWORD_PLUGIN);
        assertThat(old.seed()).isEmpty();
    }

    @Test
    void malformedAuthSwitch() {
        assertThatThrownBy(() -> AuthSwitchRequest.decode(Unpooled.buffer())).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> AuthSwitchRequest.decode(Unpooled.wrappedBuffer(HexFormat.of().parseHex("00616263"))))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> AuthSwitchRequest.decode(Unpooled.wrappedBuffer(HexFormat.of().parseHex("fe616263"))))
                .isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("plugin name");
    }

    @Test
    void authMoreDataRoundTrips() {
        AuthMoreData fastAuth = new AuthMoreData(new byte[] {3});
        ByteBuf out = Unpooled.buffer();
        fastAuth.encode(out);
        assertThat(ByteBufUtil.getBytes(out)).containsExactly(1, 3);
        assertThat(AuthMoreData.isAuthMoreData(out)).isTrue();
        assertThat(AuthMoreData.decode(out)).isEqualTo(fastAuth);
        byte[] key = "-----BEGIN PUBLIC KEY-----".getBytes();
        AuthMoreData pem = new AuthMoreData(key);
        key[0] = 'x';
        assertThat(pem.data()[0]).isEqualTo((byte) '-');
        assertThat(pem.hashCode()).isEqualTo(new AuthMoreData(Arrays.copyOf(pem.data(), pem.data().length)).hashCode());
        assertThat(AuthMoreData.isAuthMoreData(Unpooled.buffer())).isFalse();
        assertThatThrownBy(() -> AuthMoreData.decode(Unpooled.buffer())).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> AuthMoreData.decode(Unpooled.wrappedBuffer(new byte[] {2, 3})))
                .isInstanceOf(MalformedPacketException.class);
    }
}
