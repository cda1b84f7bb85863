package dev.sluice.protocol.response;

import static dev.sluice.protocol.Capabilities.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.protocol.Golden;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class ErrEofPacketTest {
    static final long CAPS = CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS;

    static byte[] payload(ErrPacket err, long caps) {
        ByteBuf out = Unpooled.buffer();
        err.encodePayload(out, caps);
        return ByteBufUtil.getBytes(out);
    }

    @Test
    void realErrorsDecodeAndReEncodeByteForByte() {
        byte[] noTable = Golden.fromServer("err-no-such-table.hex").get(0);
        ErrPacket err = ErrPacket.decode(Unpooled.wrappedBuffer(noTable));
        assertThat(err).isEqualTo(new ErrPacket(1146, "42S02", "Table 'captest.nope' doesn't exist"));
        assertThat(payload(err, CAPS)).isEqualTo(noTable);
        byte[] denied = Golden.fromServer("err-access-denied.hex").get(1);
        ErrPacket accessDenied = ErrPacket.decode(Unpooled.wrappedBuffer(denied));
        assertThat(accessDenied).isEqualTo(ErrPacket.accessDenied("sluice", "localhost", true));
        assertThat(payload(accessDenied, CAPS)).isEqualTo(denied);
        assertThat(ErrPacket.isErr(Unpooled.wrappedBuffer(denied))).isTrue();
        assertThat(ErrPacket.isProgressReport(Unpooled.wrappedBuffer(denied))).isFalse();
    }

    @Test
    void anySqlStateBytesSurviveDecodeAndEncode() {
        // SQLSTATE is five raw bytes: decoded as text, a byte above 0x7F would come back as '?'.
        byte[] wire = HexFormat.of().parseHex("ff0100" + "23" + "8030ff3030" + "78");
        ErrPacket err = ErrPacket.decode(Unpooled.wrappedBuffer(wire));
        assertThat(payload(err, CAPS)).isEqualTo(wire);
    }

    @Test
    void pre41FormHasNoSqlState() {
        ErrPacket err = new ErrPacket(ErrorCodes.ER_HANDSHAKE_ERROR, "08S01", "Bad handshake");
        byte[] wire = payload(err, 0);
        assertThat(wire).hasSize(3 + "Bad handshake".length());
        assertThat(ErrPacket.decode(Unpooled.wrappedBuffer(wire)))
                .isEqualTo(new ErrPacket(1043, ErrPacket.DEFAULT_SQL_STATE, "Bad handshake"));
    }

    @Test
    void encodeWritesAFramedPacketWithTheGivenSequenceId() {
        ByteBuf out = Unpooled.buffer();
        int next = new ErrPacket(1045, "28000", "no").encode(out, 2, CAPS);
        assertThat(next).isEqualTo(3);
        assertThat(Packets.sequenceId(out, 0)).isEqualTo(2);
        assertThat(Packets.payloadLength(out, 0)).isEqualTo(out.readableBytes() - 4);
    }

    @Test
    void malformedErrors() {
        assertThatThrownBy(() -> ErrPacket.decode(Unpooled.buffer())).isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> ErrPacket.decode(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFF, 1})))
                .isInstanceOf(MalformedPacketException.class).hasMessageContaining("error code");
        assertThatThrownBy(() -> ErrPacket.decode(Unpooled.wrappedBuffer(HexFormat.of().parseHex("ff7a042334325330"))))
                .isInstanceOf(MalformedPacketException.class).hasMessageContaining("SQL state");
        assertThatThrownBy(() -> ErrPacket.decode(Unpooled.wrappedBuffer(HexFormat.of().parseHex("00000000"))))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> new ErrPacket(1, "HY00", "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void progressReportIsNotAnError() {
        byte[] progress = HexFormat.of().parseHex("ffffff01010000000000057374616765");
        assertThat(ErrPacket.isProgressReport(Unpooled.wrappedBuffer(progress))).isTrue();
        assertThatThrownBy(() -> ErrPacket.decode(Unpooled.wrappedBuffer(progress)))
                .isInstanceOf(MalformedPacketException.class).hasMessageContaining("progress");
    }

    @Test
    void realEofPackets() {
        List<byte[]> rs = Golden.fromServer("resultset-eof.hex");
        // greeting, OK, column count, 2 definitions, EOF, 3 rows, EOF
        byte[] afterColumns = rs.get(5);
        byte[] afterRows = rs.get(9);
        for (byte[] eof : List.of(afterColumns, afterRows)) {
            assertThat(EofPacket.isEof(Unpooled.wrappedBuffer(eof))).isTrue();
            assertThat(EofPacket.isResultSetEnd(Unpooled.wrappedBuffer(eof), CAPS)).isTrue();
            EofPacket decoded = EofPacket.decode(Unpooled.wrappedBuffer(eof), CAPS);
            assertThat(decoded).isEqualTo(new EofPacket(0, ServerStatus.AUTOCOMMIT | ServerStatus.QUERY_NO_INDEX_USED));
            assertThat(EofPacket.statusFlagsOf(Unpooled.wrappedBuffer(eof))).isEqualTo(decoded.statusFlags());
            ByteBuf out = Unpooled.buffer();
            decoded.encodePayload(out, CAPS);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(eof);
        }
        for (int row = 6; row <= 8; row++) {
            assertThat(EofPacket.isResultSetEnd(Unpooled.wrappedBuffer(rs.get(row)), CAPS)).isFalse();
        }
    }

    @Test
    void aRowStartingWithFeIsNotAnEof() {
        // A text row whose first value is 16 MB or more: 0xFE then an 8-byte length.
        byte[] bigRowStart = new byte[Packets.MAX_PAYLOAD];
        bigRowStart[0] = (byte) 0xFE;
        bigRowStart[1] = 1;
        ByteBuf row = Unpooled.wrappedBuffer(bigRowStart);
        assertThat(EofPacket.isEof(row)).isFalse();
        assertThat(EofPacket.isResultSetEnd(row, CAPS)).isFalse();
        assertThat(EofPacket.isResultSetEnd(row, CAPS | CLIENT_DEPRECATE_EOF)).isFalse();
        assertThat(EofPacket.isResultSetEnd(Unpooled.wrappedBuffer(Arrays.copyOf(bigRowStart, 40)),
                CAPS | CLIENT_DEPRECATE_EOF)).isTrue();
        assertThat(EofPacket.isResultSetEnd(Unpooled.buffer(), CAPS)).isFalse();
    }

    @Test
    void eofRoundTripsAndRejectsTruncation() {
        EofPacket eof = new EofPacket(3, ServerStatus.MORE_RESULTS_EXISTS);
        ByteBuf out = Unpooled.buffer();
        assertThat(eof.encode(out, 4, CAPS)).isEqualTo(5);
        out.skipBytes(4);
        assertThat(EofPacket.decode(out, CAPS)).isEqualTo(eof);
        ByteBuf old = Unpooled.buffer();
        eof.encodePayload(old, 0);
        assertThat(old.readableBytes()).isEqualTo(1);
        assertThat(EofPacket.decode(old, 0)).isEqualTo(new EofPacket(0, 0));
        assertThat(EofPacket.statusFlagsOf(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFE}))).isZero();
        assertThatThrownBy(() -> EofPacket.decode(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFE, 0, 0, 2}), CAPS))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> EofPacket.decode(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 2, 0}), CAPS))
                .isInstanceOf(MalformedPacketException.class);
    }
}
