package dev.sluice.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BasicsTest {
    @Test
    void mariaDbExtendedCapabilitiesLiveInTheUpperHalf() {
        long caps = Capabilities.combine(0xF7FE, 0x1D);
        assertThat(Capabilities.isMariaDb(caps)).isTrue();
        assertThat(Capabilities.has(caps, Capabilities.MARIADB_CLIENT_PROGRESS)).isTrue();
        assertThat(Capabilities.has(caps, Capabilities.MARIADB_CLIENT_COM_MULTI)).isFalse();
        assertThat(Capabilities.has(caps, Capabilities.MARIADB_CLIENT_STMT_BULK_OPERATIONS)).isTrue();
        assertThat(Capabilities.has(caps, Capabilities.MARIADB_CLIENT_EXTENDED_TYPE_INFO)).isTrue();
        assertThat(Capabilities.has(caps, Capabilities.MARIADB_CLIENT_CACHE_METADATA)).isTrue();
        assertThat(Capabilities.extendedBits(caps)).isEqualTo(0x1D);
        assertThat(caps & Capabilities.LOWER_32_MASK).isEqualTo(0xF7FE);
        assertThat(Capabilities.isMariaDb(Capabilities.CLIENT_MYSQL | Capabilities.CLIENT_PROTOCOL_41)).isFalse();
    }

    @Test
    void hasNeedsEveryBit() {
        long both = Capabilities.CLIENT_SSL | Capabilities.CLIENT_PROTOCOL_41;
        assertThat(Capabilities.has(Capabilities.CLIENT_SSL, both)).isFalse();
        assertThat(Capabilities.has(both | Capabilities.CLIENT_COMPRESS, both)).isTrue();
    }

    @Test
    void describeNamesFlagsAndShowsUnknownBitsInHex() {
        assertThat(Capabilities.describe(0)).isEqualTo("none");
        assertThat(Capabilities.describe(Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_DEPRECATE_EOF
                | Capabilities.MARIADB_CLIENT_CACHE_METADATA | 1L << 40))
                .isEqualTo("PROTOCOL_41|DEPRECATE_EOF|MARIADB_CLIENT_CACHE_METADATA|0x10000000000");
        assertThat(ServerStatus.describe(ServerStatus.IN_TRANS | ServerStatus.SESSION_STATE_CHANGED | 1 << 20))
                .isEqualTo("IN_TRANS|SESSION_STATE_CHANGED|0x100000");
        assertThat(ServerStatus.describe(0)).isEqualTo("none");
    }

    @Test
    void serverStatusValuesMatchTheServer() {
        assertThat(ServerStatus.IN_TRANS).isEqualTo(0x0001);
        assertThat(ServerStatus.AUTOCOMMIT).isEqualTo(0x0002);
        assertThat(ServerStatus.MORE_RESULTS_EXISTS).isEqualTo(0x0008);
        assertThat(ServerStatus.CURSOR_EXISTS).isEqualTo(0x0040);
        assertThat(ServerStatus.LAST_ROW_SENT).isEqualTo(0x0080);
        assertThat(ServerStatus.IN_TRANS_READONLY).isEqualTo(0x2000);
        assertThat(ServerStatus.SESSION_STATE_CHANGED).isEqualTo(0x4000);
        assertThat(ServerStatus.has(0x4003, ServerStatus.IN_TRANS | ServerStatus.AUTOCOMMIT)).isTrue();
    }

    @Test
    void commandNames() {
        assertThat(Command.name(Command.COM_QUERY)).isEqualTo("COM_QUERY");
        assertThat(Command.name(Command.COM_RESET_CONNECTION)).isEqualTo("COM_RESET_CONNECTION");
        assertThat(Command.name(Command.COM_STMT_BULK_EXECUTE)).isEqualTo("COM_STMT_BULK_EXECUTE");
        assertThat(Command.name(Command.COM_MULTI)).isEqualTo("COM_MULTI");
        assertThat(Command.name(0x99)).isEqualTo("COM_UNKNOWN(0x99)");
        assertThat(Command.name(-3)).isEqualTo("COM_UNKNOWN(0xfd)");
        assertThat(Command.COM_STMT_PREPARE).isEqualTo(0x16);
        assertThat(Command.COM_SET_OPTION).isEqualTo(0x1B);
        assertThat(Command.expectsNoResponse(Command.COM_STMT_CLOSE)).isTrue();
        assertThat(Command.expectsNoResponse(Command.COM_PING)).isFalse();
    }
}
