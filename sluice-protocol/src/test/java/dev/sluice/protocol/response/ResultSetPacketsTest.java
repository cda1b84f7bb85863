package dev.sluice.protocol.response;

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
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResultSetPacketsTest {
    static final long CAPS = CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS;
    static final long EXTENDED = CAPS | CLIENT_DEPRECATE_EOF | CLIENT_SESSION_TRACK | MARIADB_CLIENT_EXTENDED_TYPE_INFO
            | MARIADB_CLIENT_CACHE_METADATA;

    @Test
    void realColumnDefinitionsDecodeAndReEncode() {
        List<byte[]> rs = Golden.fromServer("resultset-eof.hex");
        assertThat(ColumnCount.decode(Unpooled.wrappedBuffer(rs.get(2)), CAPS)).isEqualTo(new ColumnCount(2, true));
        ColumnDefinition id = ColumnDefinition.decode(Unpooled.wrappedBuffer(rs.get(3)), CAPS);
        assertThat(id).isEqualTo(new ColumnDefinition("def", "captest", "t", "t", "id", "id", Optional.empty(),
                Optional.empty(), 63, 11, 3, 0x4203, 0));
        ColumnDefinition v = ColumnDefinition.decode(Unpooled.wrappedBuffer(rs.get(4)), CAPS);
        assertThat(v.name()).isEqualTo("v");
        assertThat(v.type()).isEqualTo(ColumnDefinition.TYPE_VAR_STRING);
        assertThat(v.collation()).isEqualTo(45);
        assertThat(v.columnLength()).isEqualTo(80);
        for (int i = 3; i <= 4; i++) {
            ByteBuf out = Unpooled.buffer();
            ColumnDefinition.decode(Unpooled.wrappedBuffer(rs.get(i)), CAPS).encodePayload(out, CAPS);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(rs.get(i));
        }
    }

    @Test
    void mariaDbExtendedMetadataAndCacheMetadataByte() {
        List<byte[]> rs = Golden.fromServer("resultset-mariadb-extended.hex");
        byte[] count = rs.get(2);
        assertThat(ColumnCount.decode(Unpooled.wrappedBuffer(count), EXTENDED)).isEqualTo(new ColumnCount(2, true));
        ByteBuf out = Unpooled.buffer();
        new ColumnCount(2).encodePayload(out, EXTENDED);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(count);
        ColumnDefinition json = ColumnDefinition.decode(Unpooled.wrappedBuffer(rs.get(3)), EXTENDED);
        assertThat(json.name()).isEqualTo("j");
        assertThat(json.extendedFormat()).contains("json");
        assertThat(json.extendedType()).isEmpty();
        ColumnDefinition n = ColumnDefinition.decode(Unpooled.wrappedBuffer(rs.get(4)), EXTENDED);
        assertThat(n.extendedFormat()).isEmpty();
        for (int i = 3; i <= 4; i++) {
            ByteBuf again = Unpooled.buffer();
            ColumnDefinition.decode(Unpooled.wrappedBuffer(rs.get(i)), EXTENDED).encodePayload(again, EXTENDED);
            assertThat(ByteBufUtil.getBytes(again)).isEqualTo(rs.get(i));
        }
        // The CLI asked for CACHE_METADATA too (without DEPRECATE_EOF).
        List<byte[]> cli = Golden.fromServer("cli-session.hex");
        long cliCaps = CAPS | MARIADB_CLIENT_CACHE_METADATA | MARIADB_CLIENT_EXTENDED_TYPE_INFO;
        assertThat(ColumnCount.decode(Unpooled.wrappedBuffer(cli.get(2)), cliCaps).metadataFollows()).isTrue();
        assertThat(ColumnDefinition.decode(Unpooled.wrappedBuffer(cli.get(3)), cliCaps).name()).isEqualTo("id");
    }

    @Test
    void columnCountVariants() {
        ByteBuf mysql = Unpooled.buffer();
        new ColumnCount(300, false).encodePayload(mysql, CAPS | CLIENT_OPTIONAL_RESULTSET_METADATA);
        assertThat(ColumnCount.decode(mysql, CAPS | CLIENT_OPTIONAL_RESULTSET_METADATA)).isEqualTo(new ColumnCount(300, false));
        assertThatThrownBy(() -> ColumnCount.decode(Unpooled.wrappedBuffer(new byte[] {0}), CAPS))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> ColumnCount.decode(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFB}), CAPS))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> ColumnCount.decode(Unpooled.wrappedBuffer(new byte[] {2}), EXTENDED))
                .isInstanceOf(MalformedPacketException.class).hasMessageContaining("metadata follows");
    }

    @Test
    void truncatedColumnDefinitionsAreMalformed() {
        byte[] def = Golden.fromServer("resultset-mariadb-extended.hex").get(3);
        for (int length = 0; length < def.length - 2; length++) {
            byte[] truncated = Arrays.copyOf(def, length);
            Throwable t = catchThrowable(() -> ColumnDefinition.decode(Unpooled.wrappedBuffer(truncated), EXTENDED));
            assertThat(t).as("length %d", length).isInstanceOf(MalformedPacketException.class);
        }
    }

    @Test
    void realRowsReadAsLengthEncodedStringsWithNull() {
        List<byte[]> rs = Golden.fromServer("resultset-deprecate-eof.hex");
        ByteBuf third = Unpooled.wrappedBuffer(rs.get(5));
        assertThat(LengthEncoded.readNullableString(third, StandardCharsets.UTF_8, "id")).contains("3");
        assertThat(LengthEncoded.readNullableString(third, StandardCharsets.UTF_8, "v")).isEmpty();
    }

    @Test
    void prepareOkFromTheServer() {
        for (String file : List.of("prepare-eof.hex", "prepare-deprecate-eof.hex")) {
            List<byte[]> frames = Golden.fromServer(file);
            long caps = file.contains("deprecate") ? CAPS | CLIENT_DEPRECATE_EOF : CAPS;
            PrepareOk ok = PrepareOk.decode(Unpooled.wrappedBuffer(frames.get(0)));
            assertThat(ok.columnCount()).isEqualTo(2);
            assertThat(ok.parameterCount()).isEqualTo(2);
            assertThat(ok.warnings()).isZero();
            assertThat(ok.followingPackets(caps)).as(file).isEqualTo(frames.size() - 1);
            ByteBuf out = Unpooled.buffer();
            ok.encodePayload(out);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(frames.get(0));
            assertThat(PrepareOk.statementIdOf(Unpooled.wrappedBuffer(frames.get(0)))).isEqualTo(ok.statementId());
        }
    }

    @Test
    void statementIdIsRewrittenInPlace() {
        ByteBuf payload = Unpooled.buffer();
        new PrepareOk(7, 0, 1, 0).encodePayload(payload);
        payload.readerIndex(0);
        PrepareOk.rewriteStatementId(payload, 0xFFFF_FFFEL);
        assertThat(PrepareOk.statementIdOf(payload)).isEqualTo(0xFFFF_FFFEL);
        assertThat(PrepareOk.decode(payload)).isEqualTo(new PrepareOk(0xFFFF_FFFEL, 0, 1, 0));
        assertThat(new PrepareOk(1, 0, 0, 0).followingPackets(CAPS)).isZero();
        assertThat(new PrepareOk(1, 3, 0, 0).followingPackets(CAPS)).isEqualTo(4);
        ByteBuf framed = Unpooled.buffer();
        assertThat(new PrepareOk(1, 0, 0, 0).encode(framed, 1)).isEqualTo(2);
        assertThat(framed.readableBytes()).isEqualTo(4 + PrepareOk.LENGTH);
    }

    @Test
    void malformedPrepareOk() {
        assertThatThrownBy(() -> PrepareOk.decode(Unpooled.wrappedBuffer(new byte[] {0, 1, 0, 0})))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> PrepareOk.decode(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFF, 1, 0, 0})))
                .isInstanceOf(MalformedPacketException.class).hasMessageContaining("header");
        assertThatThrownBy(() -> PrepareOk.statementIdOf(Unpooled.wrappedBuffer(new byte[5])))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> PrepareOk.rewriteStatementId(Unpooled.wrappedBuffer(new byte[5]), 1))
                .isInstanceOf(MalformedPacketException.class);
        // The 9-byte form of old servers has no warnings.
        assertThat(PrepareOk.decode(Unpooled.wrappedBuffer(new byte[] {0, 5, 0, 0, 0, 1, 0, 0, 0})))
                .isEqualTo(new PrepareOk(5, 1, 0, 0));
    }
}
