package dev.sluice.protocol.response;

import static dev.sluice.protocol.Capabilities.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.protocol.Golden;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.response.SessionStateChange.Gtids;
import dev.sluice.protocol.response.SessionStateChange.Schema;
import dev.sluice.protocol.response.SessionStateChange.StateChange;
import dev.sluice.protocol.response.SessionStateChange.SystemVariable;
import dev.sluice.protocol.response.SessionStateChange.TransactionCharacteristics;
import dev.sluice.protocol.response.SessionStateChange.TransactionState;
import dev.sluice.protocol.response.SessionStateChange.Unknown;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class OkPacketTest {
    static final long TRACKING = CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS | CLIENT_SESSION_TRACK | CLIENT_DEPRECATE_EOF;
    static final long PLAIN = CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS;
    static final List<byte[]> STATE = Golden.fromServer("ok-session-state.hex");
    static final byte[] LAST_GTID = Golden.fromServer("ok-last-gtid.hex").get(1);

    static OkPacket decode(byte[] payload, long caps) {
        return OkPacket.decode(Unpooled.wrappedBuffer(payload), caps);
    }

    static byte[] encode(OkPacket ok, long caps, boolean eofHeader) {
        ByteBuf out = Unpooled.buffer();
        ok.encodePayload(out, caps, eofHeader);
        return ByteBufUtil.getBytes(out);
    }

    @Test
    void lastGtidFromARealInsert() {
        OkPacket ok = decode(LAST_GTID, TRACKING);
        assertThat(ok.affectedRows()).isEqualTo(1);
        assertThat(ok.lastInsertId()).isEqualTo(5);
        assertThat(ok.statusFlags()).isEqualTo(ServerStatus.AUTOCOMMIT | ServerStatus.SESSION_STATE_CHANGED);
        assertThat(ok.sessionStateChanges()).containsExactly(new SystemVariable("last_gtid", "0-1-15"));
        assertThat(OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(LAST_GTID), TRACKING, "last_gtid"))
                .contains("0-1-15");
        assertThat(OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(LAST_GTID), TRACKING, "last_gti")).isEmpty();
        assertThat(OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(LAST_GTID), PLAIN, "last_gtid")).isEmpty();
        assertThat(OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(LAST_GTID), TRACKING)).isEqualTo(0x4002);
        assertThat(encode(ok, TRACKING, false)).isEqualTo(LAST_GTID);
    }

    @Test
    void lastGtidWhereTheServerPutsStrayZerosBeforeTheStateBlock() {
        // The session's database in UTF-16, then UTF-32: one and three zero bytes before the length.
        List<byte[]> wide = Golden.fromServer("ok-last-gtid-wide-schema.hex");
        List<String> gtids = List.of("0-1-1870", "0-1-1874");
        for (int i = 0; i < wide.size(); i++) {
            ByteBuf payload = Unpooled.wrappedBuffer(wide.get(i));
            assertThat(OkPacket.sessionTrackedVariable(payload, TRACKING, "last_gtid")).contains(gtids.get(i));
            assertThat(decode(wide.get(i), TRACKING).sessionStateChanges())
                    .containsExactly(new SystemVariable("last_gtid", gtids.get(i)));
            assertThat(stripped(wide.get(i), 1)).as("what a client without tracking gets")
                    .isEqualTo(HexFormat.of().parseHex("00000002000000"));
        }
    }

    @Test
    void aStateBlockThatDoesNotEndWithThePacketIsMalformed() {
        byte[] wide = Golden.fromServer("ok-last-gtid-wide-schema.hex").get(0);
        byte[] strayNonZero = wide.clone();
        strayNonZero[8] = 0x01; // the byte before the block's length is not a zero
        byte[] trailing = Arrays.copyOf(LAST_GTID, LAST_GTID.length + 1); // one byte after the block
        byte[] fourStrayZeros = new byte[wide.length + 3];
        System.arraycopy(wide, 0, fourStrayZeros, 0, 8);
        System.arraycopy(wide, 8, fourStrayZeros, 11, wide.length - 8);
        for (byte[] bad : List.of(strayNonZero, trailing, fourStrayZeros)) {
            assertThatThrownBy(() -> OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(bad), TRACKING, "last_gtid"))
                    .isInstanceOf(MalformedPacketException.class);
            assertThatThrownBy(() -> decode(bad, TRACKING)).isInstanceOf(MalformedPacketException.class);
        }
    }

    @Test
    void everySessionStateTypeTheServerSends() {
        assertThat(decode(STATE.get(0), TRACKING).sessionStateChanges()).containsExactly(new StateChange(true),
                new TransactionState("________"), new TransactionCharacteristics(""));
        assertThat(decode(STATE.get(1), TRACKING).sessionStateChanges())
                .containsExactly(new Schema("captest2"), new StateChange(true));
        OkPacket begin = decode(STATE.get(2), TRACKING);
        assertThat(begin.statusFlags()).isEqualTo(ServerStatus.IN_TRANS | ServerStatus.AUTOCOMMIT
                | ServerStatus.IN_TRANS_READONLY | ServerStatus.SESSION_STATE_CHANGED);
        assertThat(begin.sessionStateChanges()).containsExactly(new TransactionState("T_______"),
                new TransactionCharacteristics("START TRANSACTION READ ONLY;"));
        assertThat(decode(STATE.get(4), TRACKING).sessionStateChanges())
                .containsExactly(new SystemVariable("autocommit", "OFF"), new StateChange(true));
        assertThat(OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(STATE.get(4)), TRACKING, "autocommit"))
                .contains("OFF");
        assertThat(OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(STATE.get(2)), TRACKING, "autocommit"))
                .isEmpty();
    }

    @Test
    void realOksReEncodeByteForByte() {
        for (byte[] payload : STATE) {
            if (OkPacket.isOk(Unpooled.wrappedBuffer(payload))) {
                assertThat(encode(decode(payload, TRACKING), TRACKING, false)).isEqualTo(payload);
            }
        }
        byte[] tracked = Golden.fromServer("ok-info-session-track.hex").get(0);
        assertThat(encode(decode(tracked, TRACKING), TRACKING, false)).isEqualTo(tracked);
        byte[] plain = Golden.fromServer("ok-info-no-session-track.hex").get(0);
        assertThat(encode(decode(plain, PLAIN), PLAIN, false)).isEqualTo(plain);
        byte[] loginOk = Golden.fromServer("login-native.hex").get(1);
        assertThat(encode(decode(loginOk, TRACKING), TRACKING, false)).isEqualTo(loginOk);
    }

    @Test
    void infoIsLengthEncodedWithAndWithoutSessionTracking() {
        String info = "Rows matched: 2  Changed: 0  Warnings: 0";
        OkPacket plain = decode(Golden.fromServer("ok-info-no-session-track.hex").get(0), PLAIN);
        assertThat(plain.info()).isEqualTo(info);
        assertThat(plain.sessionStateChanges()).isEmpty();
        OkPacket tracked = decode(Golden.fromServer("ok-info-session-track.hex").get(0), TRACKING);
        assertThat(tracked.info()).isEqualTo(info);
        assertThat(tracked.statusFlags()).isEqualTo(ServerStatus.IN_TRANS | ServerStatus.SESSION_STATE_CHANGED);
        assertThat(tracked.sessionStateChanges()).containsExactly(new TransactionState("I___W___"));
        // A server that sends string<EOF> (as documented) is read too.
        byte[] eofString = HexFormat.of().parseHex("000000020000004869");
        assertThat(decode(eofString, PLAIN).info()).isEqualTo("Hi");
    }

    @Test
    void resultSetTerminatorUnderDeprecateEof() {
        List<byte[]> rs = Golden.fromServer("resultset-deprecate-eof.hex");
        byte[] end = rs.get(rs.size() - 1);
        assertThat(EofPacket.isResultSetEnd(Unpooled.wrappedBuffer(end), TRACKING)).isTrue();
        assertThat(EofPacket.isEof(Unpooled.wrappedBuffer(end))).isFalse();
        OkPacket ok = decode(end, TRACKING);
        assertThat(ok.statusFlags()).isEqualTo(0x4021);
        assertThat(ok.sessionStateChanges()).containsExactly(new TransactionState("I_R_WsS_"));
        assertThat(encode(ok, TRACKING, true)).isEqualTo(end);
        assertThat(OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(end), TRACKING)).isEqualTo(0x4021);
    }

    @Test
    void warningCountReadInPlace() {
        assertThat(OkPacket.warningsOf(Unpooled.wrappedBuffer(LAST_GTID), TRACKING)).isZero();
        OkPacket warned = new OkPacket(300, 1L << 40, ServerStatus.AUTOCOMMIT, 7, "info", List.of());
        assertThat(OkPacket.warningsOf(Unpooled.wrappedBuffer(encode(warned, TRACKING, false)), TRACKING)).isEqualTo(7);
        assertThat(OkPacket.warningsOf(Unpooled.wrappedBuffer(encode(warned, PLAIN, true)), PLAIN)).isEqualTo(7);
        // Before protocol 4.1 an OK carried no warning count.
        assertThat(OkPacket.warningsOf(Unpooled.wrappedBuffer(encode(warned, CLIENT_TRANSACTIONS, false)),
                CLIENT_TRANSACTIONS)).isZero();
        assertThatThrownBy(() -> OkPacket.warningsOf(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 2, 0}), PLAIN))
                .isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void moreResultsFlagInAMultiStatement() {
        List<byte[]> frames = Golden.fromServer("multi-result-deprecate-eof.hex");
        assertThat(ServerStatus.has(OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(frames.get(3)), TRACKING),
                ServerStatus.MORE_RESULTS_EXISTS)).isTrue();
        assertThat(ServerStatus.has(OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(frames.get(7)), TRACKING),
                ServerStatus.MORE_RESULTS_EXISTS)).isFalse();
    }

    @Test
    void roundTripsEveryEntryTypeAndLayout() {
        OkPacket ok = new OkPacket(300, 1L << 40, ServerStatus.AUTOCOMMIT, 2, "info", List.of(
                new SystemVariable("last_gtid", "0-1-99"), new Schema("db"), new StateChange(true),
                new Gtids(0, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"), new TransactionCharacteristics("SET x;"),
                new TransactionState("T_______"), new Unknown(99, new byte[] {1, 2, 3})));
        OkPacket back = decode(encode(ok, TRACKING, false), TRACKING);
        assertThat(back).isEqualTo(new OkPacket(300, 1L << 40, ServerStatus.AUTOCOMMIT | ServerStatus.SESSION_STATE_CHANGED,
                2, "info", ok.sessionStateChanges()));
        assertThat(decode(encode(ok, TRACKING, true), TRACKING)).isEqualTo(back);
        OkPacket plain = decode(encode(ok, PLAIN, false), PLAIN);
        assertThat(plain).isEqualTo(new OkPacket(300, 1L << 40, ServerStatus.AUTOCOMMIT, 2, "info", List.of()));
        OkPacket transactionsOnly = decode(encode(ok, CLIENT_TRANSACTIONS, false), CLIENT_TRANSACTIONS);
        assertThat(transactionsOnly.statusFlags()).isEqualTo(ServerStatus.AUTOCOMMIT);
        assertThat(transactionsOnly.warnings()).isZero();
        assertThat(decode(encode(OkPacket.of(2), 0, false), 0)).isEqualTo(new OkPacket(0, 0, 0, 0, "", List.of()));
        assertThat(OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(encode(ok, 0, false)), 0)).isZero();
        assertThat(OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(encode(ok, TRACKING, false)), TRACKING,
                "last_gtid")).contains("0-1-99");
    }

    @Test
    void unknownEntryTypesAreSkippedByLength() {
        // type 0x7f with 3 bytes of data, then last_gtid.
        byte[] payload = HexFormat.of().parseHex("0000000240000000" + "14" + "7f03aabbcc" + "000d" + "096c6173745f67746964"
                + "02312d");
        OkPacket ok = decode(payload, TRACKING);
        assertThat(ok.sessionStateChanges()).hasSize(2);
        assertThat(ok.sessionStateChanges().get(0)).isEqualTo(new Unknown(0x7f, new byte[] {(byte) 0xaa, (byte) 0xbb,
            (byte) 0xcc}));
        assertThat(OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(payload), TRACKING, "last_gtid")).contains("1-");
    }

    @Test
    void truncatedOksAreMalformedNeverOutOfBounds() {
        for (byte[] payload : List.of(LAST_GTID, STATE.get(0), STATE.get(2), STATE.get(4))) {
            for (int length = 0; length < payload.length; length++) {
                byte[] truncated = Arrays.copyOf(payload, length);
                Throwable decoded = catchThrowable(() -> decode(truncated, TRACKING));
                Throwable scanned = catchThrowable(() -> OkPacket.sessionTrackedVariable(
                        Unpooled.wrappedBuffer(truncated), TRACKING, "last_gtid"));
                for (Throwable t : new Throwable[] {decoded, scanned}) {
                    if (t != null) {
                        assertThat(t).as("length %d", length).isInstanceOf(MalformedPacketException.class);
                    }
                }
                if (length > 0 && length < 7) {
                    assertThat(decoded).as("length %d", length).isInstanceOf(MalformedPacketException.class);
                }
                if (length < 5) { // the status flags end at byte 5 when both lenencs take one byte
                    assertThatThrownBy(() -> OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(truncated), TRACKING))
                            .isInstanceOf(MalformedPacketException.class);
                }
            }
        }
    }

    @Test
    void impossibleLengthsInsideTheStateBlockAreMalformed() {
        byte[] blockTooLong = LAST_GTID.clone();
        blockTooLong[8] = 0x14; // block length one more than there is
        byte[] entryTooLong = LAST_GTID.clone();
        entryTooLong[10] = 0x12; // entry data longer than the block
        byte[] valueTooLong = LAST_GTID.clone();
        valueTooLong[21] = 0x07; // last_gtid value runs past its entry
        for (byte[] bad : List.of(blockTooLong, entryTooLong, valueTooLong)) {
            assertThatThrownBy(() -> decode(bad, TRACKING)).isInstanceOf(MalformedPacketException.class);
            assertThatThrownBy(() -> OkPacket.sessionTrackedVariable(Unpooled.wrappedBuffer(bad), TRACKING, "last_gtid"))
                    .isInstanceOf(MalformedPacketException.class);
        }
        assertThatThrownBy(() -> decode(new byte[] {(byte) 0xFF, 0, 0}, TRACKING))
                .isInstanceOf(MalformedPacketException.class).hasMessageContaining("header 0xff");
        byte[] lenencOverflow = HexFormat.of().parseHex("00fe0100");
        assertThatThrownBy(() -> decode(lenencOverflow, TRACKING)).isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void sessionStateChangeIsRecognisedByTheOkHeaderOnly() {
        assertThat(OkPacket.isOk(Unpooled.wrappedBuffer(LAST_GTID))).isTrue();
        assertThat(OkPacket.isOk(Unpooled.buffer())).isFalse();
        assertThat(OkPacket.isOk(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFE}))).isFalse();
    }

    private static byte[] stripped(byte[] payload, int sequenceId) {
        ByteBuf packet = Unpooled.buffer().writeMediumLE(payload.length).writeByte(sequenceId).writeBytes(payload);
        ByteBuf out = OkPacket.withoutSessionState(packet, 0, io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
        try {
            assertThat(out.getUnsignedMediumLE(0)).as("length in the header").isEqualTo(out.readableBytes() - 4);
            assertThat((int) out.getUnsignedByte(3)).as("sequence id").isEqualTo(sequenceId);
            return ByteBufUtil.getBytes(out, 4, out.readableBytes() - 4);
        } finally {
            out.release();
            packet.release();
        }
    }

    @Test
    void withoutSessionStateIsWhatAClientWithoutTrackingGetsFromTheServer() {
        byte[] tracked = Golden.fromServer("ok-info-session-track.hex").get(0);
        byte[] plain = Golden.fromServer("ok-info-no-session-track.hex").get(0);
        byte[] out = stripped(tracked, 1);
        // The two captures differ in their status flags only (one ran inside a transaction).
        assertThat(OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(out), PLAIN))
                .isEqualTo(OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(tracked), TRACKING)
                        & ~ServerStatus.SESSION_STATE_CHANGED);
        byte[] sameStatus = plain.clone();
        sameStatus[3] = out[3];
        sameStatus[4] = out[4];
        assertThat(out).isEqualTo(sameStatus);
    }

    @Test
    void withoutSessionStateDropsEveryKindOfChangeAndKeepsTheRest() {
        OkPacket ok = new OkPacket(300, 1L << 40, ServerStatus.AUTOCOMMIT | ServerStatus.SESSION_STATE_CHANGED, 2,
                "info", List.of(new SystemVariable("last_gtid", "0-1-99"), new Schema("db"), new StateChange(true)));
        OkPacket plain = new OkPacket(300, 1L << 40, ServerStatus.AUTOCOMMIT, 2, "info", List.of());
        assertThat(stripped(encode(ok, TRACKING, false), 7)).isEqualTo(encode(plain, PLAIN, false));
        assertThat(stripped(encode(ok, TRACKING, true), 7)).as("the 0xFE form ending a result set")
                .isEqualTo(encode(plain, PLAIN, true));
        OkPacket noInfo = new OkPacket(1, 0, ServerStatus.AUTOCOMMIT | ServerStatus.SESSION_STATE_CHANGED, 0, "",
                List.of(new SystemVariable("last_gtid", "0-1-100")));
        assertThat(stripped(encode(noInfo, TRACKING, false), 1)).as("an empty info is left out, as the server does")
                .isEqualTo(encode(new OkPacket(1, 0, ServerStatus.AUTOCOMMIT, 0, "", List.of()), PLAIN, false));
        assertThat(OkPacket.payloadWithoutSessionState(LAST_GTID)).isEqualTo(stripped(LAST_GTID, 1));
    }

    @Test
    void withoutSessionStateRefusesAnInfoLongerThanThePacket() {
        byte[] bad = {0, 0, 0, 2, 0x40, 0, 0, 9, 'x'};
        assertThatThrownBy(() -> stripped(bad, 1)).isInstanceOf(MalformedPacketException.class);
    }
}
