package dev.sluice.protocol.handshake;

import static dev.sluice.protocol.Capabilities.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.protocol.Golden;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HandshakeResponse41Test {
    static final byte[] CLI = Golden.fromClient("cli-session.hex").get(0);

    static byte[] encode(HandshakeResponse41 r) {
        ByteBuf out = Unpooled.buffer();
        r.encode(out);
        return ByteBufUtil.getBytes(out);
    }

    static HandshakeResponse41 decode(byte[] wire) {
        return HandshakeResponse41.decode(Unpooled.wrappedBuffer(wire));
    }

    @Test
    void decodesTheMariadbCliLogin() {
        HandshakeResponse41 r = decode(CLI);
        assertThat(r.username()).isEqualTo("sluice");
        assertThat(r.database()).contains("captest");
        assertThat(r.authPluginName()).contains("mysql_native_password");
        assertThat(r.authResponse()).hasSize(20);
        assertThat(r.collation()).isEqualTo(33);
        assertThat(r.maxPacketSize()).isEqualTo(1L << 20);
        assertThat(isMariaDb(r.capabilities())).isTrue();
        assertThat(r.mariaDbExtendedCapabilities()).isEqualTo(0x1D);
        assertThat(has(r.capabilities(), CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | CLIENT_CONNECT_ATTRS)).isTrue();
        assertThat(has(r.capabilities(), CLIENT_DEPRECATE_EOF)).isFalse();
        assertThat(r.connectAttributes().keySet()).containsExactly("_os", "_client_name", "_pid", "_client_version",
                "_platform", "program_name", "_server_host");
        assertThat(r.connectAttributes()).containsEntry("_client_name", "libmariadb")
                .containsEntry("program_name", "mysql");
        assertThat(r.toString()).contains("authResponse=<20 bytes>").doesNotContain("[B@");
    }

    @Test
    void reEncodesRealLoginsByteForByte() {
        for (String file : new String[] {"cli-session.hex", "login-native.hex", "auth-switch.hex",
            "resultset-mariadb-extended.hex"}) {
            byte[] wire = Golden.fromClient(file).get(0);
            HandshakeResponse41 r = decode(wire);
            assertThat(encode(r)).as(file).isEqualTo(wire);
            assertThat(decode(encode(r))).isEqualTo(r);
        }
    }

    @Test
    void roundTripsEveryAuthResponseLayout() {
        byte[] auth = new byte[20];
        Arrays.fill(auth, (byte) 7);
        Map<String, String> attrs = new LinkedHashMap<>();
        attrs.put("b", "2");
        attrs.put("a", "é".repeat(200));
        long base = CLIENT_MYSQL | CLIENT_PROTOCOL_41;
        for (long caps : new long[] {
            base, base | CLIENT_SECURE_CONNECTION, base | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
            base | CLIENT_SECURE_CONNECTION | CLIENT_CONNECT_WITH_DB | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_ATTRS,
            CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | MARIADB_CLIENT_STMT_BULK_OPERATIONS,
        }) {
            HandshakeResponse41 r = new HandshakeResponse41(caps, 1 << 24, 224, "ü", auth,
                    has(caps, CLIENT_CONNECT_WITH_DB) ? Optional.of("db") : Optional.empty(),
                    has(caps, CLIENT_PLUGIN_AUTH) ? Optional.of("mysql_native_password") : Optional.empty(),
                    has(caps, CLIENT_CONNECT_ATTRS) ? attrs : Map.of());
            assertThat(decode(encode(r))).as(describe(caps)).isEqualTo(r);
        }
    }

    @Test
    void longAuthResponseNeedsLengthEncoding() {
        byte[] auth = new byte[300];
        long caps = CLIENT_PROTOCOL_41 | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
        HandshakeResponse41 r = new HandshakeResponse41(caps, 0, 8, "u", auth, Optional.empty(), Optional.empty(), Map.of());
        assertThat(decode(encode(r)).authResponse()).hasSize(300);
        HandshakeResponse41 shortForm = new HandshakeResponse41(CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION, 0, 8, "u",
                auth, Optional.empty(), Optional.empty(), Map.of());
        assertThatThrownBy(() -> encode(shortForm)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void optionalFieldsMissingAtTheEndAreAbsent() {
        long caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_CONNECT_WITH_DB | CLIENT_PLUGIN_AUTH
                | CLIENT_CONNECT_ATTRS;
        HandshakeResponse41 withoutTail = new HandshakeResponse41(caps & ~(CLIENT_CONNECT_WITH_DB | CLIENT_PLUGIN_AUTH
                | CLIENT_CONNECT_ATTRS), 0, 8, "u", new byte[0], Optional.empty(), Optional.empty(), Map.of());
        byte[] wire = encode(withoutTail);
        wire[1] |= (byte) (CLIENT_CONNECT_WITH_DB >> 8); // no-op for bit 3, keeps the layout honest
        wire[0] |= (byte) CLIENT_CONNECT_WITH_DB;
        wire[2] |= (byte) ((CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_ATTRS) >> 16);
        HandshakeResponse41 r = decode(wire);
        assertThat(r.database()).isEmpty();
        assertThat(r.authPluginName()).isEmpty();
        assertThat(r.connectAttributes()).isEmpty();
        assertThat(r.capabilities()).isEqualTo(caps);
    }

    @Test
    void aLoginThatEndsBeforeAnOptionalFieldReEncodesToItself() {
        // An absent database and an empty one are different bytes: re-encoding must not turn absent into "".
        long caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_CONNECT_WITH_DB | CLIENT_PLUGIN_AUTH
                | CLIENT_CONNECT_ATTRS;
        HandshakeResponse41 full = new HandshakeResponse41(caps, 0, 8, "u", new byte[] {1, 2}, Optional.of("db"),
                Optional.of("mysql_native_password"), Map.of("k", "v"));
        byte[] wire = encode(full);
        for (int length = 0; length <= wire.length; length++) {
            HandshakeResponse41 prefix;
            try {
                prefix = decode(Arrays.copyOf(wire, length));
            } catch (MalformedPacketException cutInsideAField) {
                continue;
            }
            assertThat(decode(encode(prefix))).as("length %d", length).isEqualTo(prefix);
        }
        HandshakeResponse41 noDatabase = new HandshakeResponse41(caps, 0, 8, "u", new byte[0], Optional.empty(),
                Optional.of("mysql_native_password"), Map.of());
        assertThat(decode(encode(noDatabase)).database()).as("written as \"\" before the plugin name").contains("");
    }

    @Test
    void everyTruncationIsMalformedOrAValidPrefix() {
        for (int length = 0; length < CLI.length; length++) {
            byte[] truncated = Arrays.copyOf(CLI, length);
            Throwable thrown = catchThrowable(() -> decode(truncated));
            if (thrown != null) {
                assertThat(thrown).as("length %d", length).isInstanceOf(MalformedPacketException.class);
            }
        }
        // Cut inside the fixed part, the user name, the auth data or the attributes: malformed.
        for (int length : new int[] {0, 4, 31, 33, 40, 55, CLI.length - 1}) {
            assertThatThrownBy(() -> decode(Arrays.copyOf(CLI, length)))
                    .as("length %d", length)
                    .isInstanceOf(MalformedPacketException.class);
        }
    }

    @Test
    void impossibleLengthsAreMalformed() {
        int userEnd = 32 + "sluice".length() + 1;
        byte[] authTooLong = CLI.clone();
        authTooLong[userEnd] = (byte) 0xFA;
        assertThatThrownBy(() -> decode(authTooLong)).isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("auth response");
        byte[] authHuge = Arrays.copyOf(CLI, userEnd + 9);
        authHuge[userEnd] = (byte) LengthEncoded.PREFIX_8;
        Arrays.fill(authHuge, userEnd + 1, userEnd + 9, (byte) 0xFF);
        assertThatThrownBy(() -> decode(authHuge)).isInstanceOf(MalformedPacketException.class);
        byte[] attrsTooLong = CLI.clone();
        int attrsAt = CLI.length - 0x7F - 1;
        assertThat(attrsTooLong[attrsAt]).isEqualTo((byte) 0x7F);
        attrsTooLong[attrsAt] = (byte) 0x80;
        assertThatThrownBy(() -> decode(attrsTooLong)).isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("connect attributes");
        // A key whose value is missing: shrink the block by the last value.
        byte[] keyWithoutValue = Arrays.copyOf(CLI, CLI.length - "127.0.0.1".length() - 1);
        keyWithoutValue[attrsAt] = (byte) (0x7F - "127.0.0.1".length() - 1);
        assertThatThrownBy(() -> decode(keyWithoutValue)).isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("no value");
        byte[] userNotTerminated = Arrays.copyOf(CLI, 38);
        assertThatThrownBy(() -> decode(userNotTerminated)).hasMessageContaining("user name");
    }

    @Test
    void pre41ResponsesAreRefused() {
        byte[] old = CLI.clone();
        old[1] &= (byte) ~(CLIENT_PROTOCOL_41 >> 8);
        assertThatThrownBy(() -> decode(old)).isInstanceOf(MalformedPacketException.class).hasMessageContaining("4.1");
    }

    @Test
    void sslRequestIsTheFixedPartWithSsl() {
        SslRequest ssl = new SslRequest(CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | MARIADB_CLIENT_CACHE_METADATA,
                1 << 24, 45);
        ByteBuf out = Unpooled.buffer();
        ssl.encode(out);
        assertThat(out.readableBytes()).isEqualTo(32);
        assertThat(SslRequest.isSslRequest(out)).isTrue();
        SslRequest back = SslRequest.decode(out);
        assertThat(back.capabilities()).isEqualTo(ssl.capabilities() | CLIENT_SSL);
        assertThat(back.maxPacketSize()).isEqualTo(1 << 24);
        assertThat(back.collation()).isEqualTo(45);
        // A full login, even with CLIENT_SSL set, is not an SSL request; nor are 32 bytes without it.
        byte[] sslLogin = CLI.clone();
        sslLogin[1] |= (byte) (CLIENT_SSL >> 8);
        assertThat(SslRequest.isSslRequest(Unpooled.wrappedBuffer(sslLogin))).isFalse();
        assertThat(SslRequest.isSslRequest(Unpooled.wrappedBuffer(Arrays.copyOf(CLI, 32)))).isFalse();
        assertThatThrownBy(() -> SslRequest.decode(Unpooled.wrappedBuffer(CLI))).isInstanceOf(MalformedPacketException.class);
    }
}
