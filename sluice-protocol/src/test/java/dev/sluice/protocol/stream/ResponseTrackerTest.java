package dev.sluice.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponseTrackerTest {
    private static final int MORE_RESULTS = 0x0008;
    private static final int IN_TRANS = 0x0001;
    private static final int AUTOCOMMIT = 0x0002;
    private static final int CURSOR_EXISTS = 0x0040;

    private int seq;

    private ByteBuf packet(int... payload) {
        ByteBuf b = Unpooled.buffer();
        b.writeMediumLE(payload.length).writeByte(seq++);
        for (int p : payload) {
            b.writeByte(p);
        }
        return b;
    }

    private ByteBuf packetOfLength(int length, int first) {
        ByteBuf b = Unpooled.buffer(length + 4);
        b.writeMediumLE(length).writeByte(seq++);
        if (length > 0) {
            b.writeByte(first);
            b.writeZero(length - 1);
        }
        return b;
    }

    private ByteBuf ok(int status) {
        return packet(0x00, 0x00, 0x00, status & 0xFF, status >> 8, 0, 0);
    }

    private ByteBuf okEof(int status) {
        return packet(0xFE, 0x00, 0x00, status & 0xFF, status >> 8, 0, 0);
    }

    private ByteBuf eof(int status) {
        return packet(0xFE, 0, 0, status & 0xFF, status >> 8);
    }

    private ByteBuf err() {
        return packet(0xFF, 0x28, 0x04, '#', '4', '2', '0', '0', '0', 'x');
    }

    private ByteBuf column() {
        return packetOfLength(30, 0x03);
    }

    private ByteBuf row() {
        return packetOfLength(12, 0x05);
    }

    private static ByteBuf concat(ByteBuf... parts) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf p : parts) {
            all.writeBytes(p);
        }
        return all;
    }

    /** Feeds the stream in chunks of {@code chunk} bytes, re-presenting unsettled bytes. */
    private static int feed(ResponseTracker t, ByteBuf stream, int chunk) {
        ByteBuf pending = Unpooled.buffer();
        int settledTotal = 0;
        int pos = 0;
        while (pos < stream.writerIndex() && !t.isComplete()) {
            int n = Math.min(chunk, stream.writerIndex() - pos);
            pending.writeBytes(stream, pos, n);
            pos += n;
            int s = t.scan(pending, pending.readerIndex(), pending.writerIndex());
            settledTotal += s - pending.readerIndex();
            pending.readerIndex(s);
            pending.discardReadBytes();
        }
        return settledTotal;
    }

    private void assertEndsExactly(ResponseKind kind, boolean deprecateEof, ByteBuf response, int expectedStatus) {
        ByteBuf trailing = packet(0x42, 0x42);
        ByteBuf stream = concat(response, trailing);
        for (int chunk : new int[] {1, 2, 3, 5, 7, 64, 100_000}) {
            ResponseTracker t = new ResponseTracker(deprecateEof);
            t.expect(kind, ResponseListener.NONE);
            int settled = feed(t, stream, chunk);
            assertThat(t.isComplete()).as("complete with chunk %d", chunk).isTrue();
            assertThat(settled).as("settled with chunk %d", chunk).isEqualTo(response.writerIndex());
            assertThat(t.lastStatus()).isEqualTo(expectedStatus);
        }
    }

    @Test
    void okEndsAResult() {
        assertEndsExactly(ResponseKind.RESULT, false, ok(AUTOCOMMIT), AUTOCOMMIT);
    }

    @Test
    void errEndsAResult() {
        assertEndsExactly(ResponseKind.RESULT, false, err(), -1);
    }

    @Test
    void resultSetWithEofPackets() {
        ByteBuf rs = concat(packet(2), column(), column(), eof(AUTOCOMMIT), row(), row(), row(), eof(IN_TRANS));
        assertEndsExactly(ResponseKind.RESULT, false, rs, IN_TRANS);
    }

    @Test
    void resultSetUnderDeprecateEof() {
        ByteBuf rs = concat(packet(1), column(), row(), row(), okEof(AUTOCOMMIT | IN_TRANS));
        assertEndsExactly(ResponseKind.RESULT, true, rs, AUTOCOMMIT | IN_TRANS);
    }

    /** The warning count of the packet that ended the response, in each layout a response can end with. */
    @Test
    void warningsOfTheLastTerminator() {
        int warnings = 0x0102;
        assertThat(lastWarnings(false, packet(0x00, 0x00, 0x00, AUTOCOMMIT, 0, 0x02, 0x01))).isEqualTo(warnings);
        assertThat(lastWarnings(false, concat(packet(1), column(), eof(0), row(),
                packet(0xFE, 0x02, 0x01, AUTOCOMMIT, 0)))).isEqualTo(warnings);
        // Under DEPRECATE_EOF the short 0xFE packet is an OK: its warnings follow the status.
        assertThat(lastWarnings(true, concat(packet(1), column(), row(),
                packet(0xFE, 0x00, 0x00, AUTOCOMMIT, 0, 0x02, 0x01)))).isEqualTo(warnings);
        assertThat(lastWarnings(true, concat(packet(1), column(), row(), okEof(AUTOCOMMIT)))).isZero();
        assertThat(lastWarnings(false, err())).isZero();
    }

    @Test
    void rowsOfTheLastResultSet() {
        assertThat(finished(false, concat(packet(1), column(), eof(0), row(), row(), row(), eof(AUTOCOMMIT)))
                .resultRows()).isEqualTo(3);
        assertThat(finished(true, concat(packet(1), column(), okEof(AUTOCOMMIT))).resultRows()).isZero();
        assertThat(finished(false, concat(packet(1), column(), eof(0), row(), eof(MORE_RESULTS),
                packet(1), column(), eof(0), row(), row(), eof(AUTOCOMMIT))).resultRows()).as("the last of two")
                .isEqualTo(2);
        assertThat(finished(false, ok(AUTOCOMMIT)).resultRows()).as("no result set").isEqualTo(-1);
        assertThat(finished(false, err()).resultRows()).isEqualTo(-1);
    }

    private ResponseTracker finished(boolean deprecateEof, ByteBuf response) {
        ResponseTracker t = new ResponseTracker(deprecateEof);
        t.expect(ResponseKind.RESULT, ResponseListener.NONE);
        t.scan(response, 0, response.writerIndex());
        assertThat(t.isComplete()).isTrue();
        return t;
    }

    private int lastWarnings(boolean deprecateEof, ByteBuf response) {
        ResponseTracker t = new ResponseTracker(deprecateEof);
        t.expect(ResponseKind.RESULT, ResponseListener.NONE);
        t.scan(response, 0, response.writerIndex());
        assertThat(t.isComplete()).isTrue();
        return t.lastWarnings();
    }

    @Test
    void multipleResultsChainOnMoreResultsFlag() {
        ByteBuf rs = concat(packet(1), column(), eof(0), row(), eof(MORE_RESULTS),
                ok(MORE_RESULTS), packet(1), column(), eof(0), eof(AUTOCOMMIT));
        assertEndsExactly(ResponseKind.RESULT, false, rs, AUTOCOMMIT);
    }

    @Test
    void errorInTheMiddleOfRowsEndsTheResponse() {
        ByteBuf rs = concat(packet(1), column(), row(), err());
        assertEndsExactly(ResponseKind.RESULT, true, rs, -1);
    }

    @Test
    void aRowStartingWith0xFeIsNotATerminatorWhenLongEnough() {
        // Pre-DEPRECATE_EOF: an EOF is < 9 bytes; a 20-byte packet starting 0xFE is a row.
        ByteBuf rs = concat(packet(1), column(), eof(0), packetOfLength(20, 0xFE), eof(AUTOCOMMIT));
        assertEndsExactly(ResponseKind.RESULT, false, rs, AUTOCOMMIT);
    }

    @Test
    void rowsOfSixteenMegabytesAndMoreAreContinuedNotParsed() {
        // A 0xFFFFFF packet whose continuation begins with bytes that look like an EOF.
        ByteBuf big = packetOfLength(0xFFFFFF, 0xFE);
        ByteBuf continuation = packet(0xFE, 0, 0, 0, 0);
        ByteBuf rs = concat(packet(1), column(), row(), big, continuation, okEof(AUTOCOMMIT));
        ResponseTracker t = new ResponseTracker(true);
        t.expect(ResponseKind.RESULT, ResponseListener.NONE);
        assertThat(feed(t, rs, 1 << 20)).isEqualTo(rs.writerIndex());
        assertThat(t.isComplete()).isTrue();
        assertThat(t.lastStatus()).isEqualTo(AUTOCOMMIT);
    }

    @Test
    void rowsPassThroughBeforeTheyAreWhole() {
        ResponseTracker t = new ResponseTracker(true);
        t.expect(ResponseKind.RESULT, ResponseListener.NONE);
        ByteBuf head = concat(packet(1), column(), packetOfLength(1000, 0x05));
        // Present everything but the last 500 bytes of the row: all of it settles at once.
        int visible = head.writerIndex() - 500;
        assertThat(t.scan(head, 0, visible)).isEqualTo(visible);
        assertThat(t.isComplete()).isFalse();
    }

    @Test
    void cursorExecuteEndsAfterMetadata() {
        ByteBuf rs = concat(packet(1), column(), eof(CURSOR_EXISTS | AUTOCOMMIT));
        assertEndsExactly(ResponseKind.RESULT_WITH_CURSOR, false, rs, CURSOR_EXISTS | AUTOCOMMIT);
    }

    @Test
    void fetchEndsAtEof() {
        ByteBuf rs = concat(row(), row(), eof(CURSOR_EXISTS));
        assertEndsExactly(ResponseKind.FETCH, false, rs, CURSOR_EXISTS);
    }

    @Test
    void prepareWithParamsAndColumns() {
        ByteBuf prepOk = packet(0x00, 7, 0, 0, 0, 2, 0, 3, 0, 0, 0, 0);
        ByteBuf withEof = concat(prepOk.copy(), column(), column(), column(), eof(0), column(), column(), eof(0));
        assertEndsExactly(ResponseKind.PREPARE, false, withEof, -1);
        ByteBuf without = concat(prepOk.copy(), column(), column(), column(), column(), column());
        assertEndsExactly(ResponseKind.PREPARE, true, without, -1);
    }

    @Test
    void prepareWithoutParamsOrColumnsIsOnePacket() {
        assertEndsExactly(ResponseKind.PREPARE, false, packet(0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1);
    }

    @Test
    void prepareOkCanBeRewrittenInPlace() {
        ByteBuf prepOk = packet(0x00, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        ResponseTracker t = new ResponseTracker(false);
        t.expect(ResponseKind.PREPARE, new ResponseListener() {
            @Override
            public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
                buf.setIntLE(payloadIndex + 1, 99);
            }
        });
        t.scan(prepOk, 0, prepOk.writerIndex());
        assertThat(prepOk.getIntLE(5)).isEqualTo(99);
    }

    @Test
    void localInfileRequestEndsThePhase() {
        ResponseTracker t = new ResponseTracker(false);
        List<String> seen = new ArrayList<>();
        t.expect(ResponseKind.RESULT, new ResponseListener() {
            @Override
            public void onLocalInfileRequest(ByteBuf buf, int payloadIndex, int length) {
                seen.add("infile");
            }
        });
        ByteBuf req = packet(0xFB, 'f');
        t.scan(req, 0, req.writerIndex());
        assertThat(t.isComplete()).isTrue();
        assertThat(t.isLocalInfileRequest()).isTrue();
        assertThat(seen).containsExactly("infile");
    }

    @Test
    void fieldListEndsAtEof() {
        assertEndsExactly(ResponseKind.FIELD_LIST, false, concat(column(), column(), eof(AUTOCOMMIT)), AUTOCOMMIT);
    }

    @Test
    void statisticsIsOnePacket() {
        assertEndsExactly(ResponseKind.STATISTICS, false, packet('U', 'p', 't', 'i', 'm', 'e'), -1);
    }

    @Test
    void singleOkOrEof() {
        assertEndsExactly(ResponseKind.SINGLE, false, ok(IN_TRANS), IN_TRANS);
        assertEndsExactly(ResponseKind.SINGLE, false, eof(AUTOCOMMIT), AUTOCOMMIT);
    }

    @Test
    void idleTrackerSettlesNothing() {
        ResponseTracker t = new ResponseTracker(false);
        ByteBuf stray = ok(0);
        assertThat(t.scan(stray, 0, stray.writerIndex())).isZero();
    }

    private static final int SESSION_STATE_CHANGED = 0x4000;

    /** An OK reporting a session state change: status, no warnings, empty info, a 3-byte state block. */
    private ByteBuf okWithState(int header, int status) {
        return packet(header, 0x00, 0x00, status & 0xFF, status >> 8, 0, 0, 0, 3, 0x01, 0x01, 0x31);
    }

    @Test
    void anEofThatSaysTheStateChangedIsReportedAsStateNotSent() {
        int[] told = new int[1];
        ResponseListener counting = new ResponseListener() {
            @Override
            public void onSessionStateNotSent() {
                told[0]++;
            }
        };
        ResponseTracker eofs = new ResponseTracker(false);
        eofs.expect(ResponseKind.RESULT, counting);
        ByteBuf rs = concat(packet(1), column(), eof(AUTOCOMMIT), row(), eof(AUTOCOMMIT | SESSION_STATE_CHANGED));
        eofs.scan(rs, 0, rs.writerIndex());
        assertThat(eofs.isComplete()).isTrue();
        assertThat(told[0]).isEqualTo(1);

        ResponseTracker deprecateEof = new ResponseTracker(true);
        deprecateEof.expect(ResponseKind.RESULT, counting);
        ByteBuf withState = concat(packet(1), column(), row(), okWithState(0xFE, AUTOCOMMIT | SESSION_STATE_CHANGED));
        deprecateEof.scan(withState, 0, withState.writerIndex());
        assertThat(told[0]).as("an OK terminator carries the state itself").isEqualTo(1);
        ByteBuf plain = concat(packet(1), column(), eof(AUTOCOMMIT), row(), eof(AUTOCOMMIT));
        eofs.expect(ResponseKind.RESULT, counting);
        eofs.scan(plain, 0, plain.writerIndex());
        assertThat(told[0]).as("no change, nothing to tell").isEqualTo(1);
    }

    @Test
    void anOkWithSessionStateIsPointedOutForAClientThatDidNotAskForIt() {
        ResponseTracker t = new ResponseTracker(true);
        t.expect(ResponseKind.RESULT, ResponseListener.NONE, true);
        ByteBuf stream = okWithState(0x00, AUTOCOMMIT | SESSION_STATE_CHANGED);
        int settled = t.scan(stream, 0, stream.writerIndex());
        assertThat(settled).isEqualTo(stream.writerIndex());
        assertThat(t.takeRewrite()).isZero();
        assertThat(t.takeRewrite()).as("taken once").isEqualTo(-1);
        assertThat(t.isComplete()).isTrue();

        t.expect(ResponseKind.RESULT, ResponseListener.NONE, false);
        t.scan(stream, 0, stream.writerIndex());
        assertThat(t.takeRewrite()).as("a client that negotiated tracking gets it as it is").isEqualTo(-1);
    }

    @Test
    void aScanStopsRightAfterAnOkToRewriteInsideMultipleResults() {
        ResponseTracker t = new ResponseTracker(true);
        t.expect(ResponseKind.RESULT, ResponseListener.NONE, true);
        ByteBuf first = okWithState(0x00, AUTOCOMMIT | MORE_RESULTS | SESSION_STATE_CHANGED);
        ByteBuf second = ok(AUTOCOMMIT);
        ByteBuf stream = concat(first, second);
        int settled = t.scan(stream, 0, stream.writerIndex());
        assertThat(settled).as("stopped after the OK to rewrite").isEqualTo(first.writerIndex());
        assertThat(t.takeRewrite()).isZero();
        assertThat(t.isComplete()).isFalse();
        settled = t.scan(stream, settled, stream.writerIndex());
        assertThat(settled).isEqualTo(stream.writerIndex());
        assertThat(t.takeRewrite()).as("a plain OK passes as it is").isEqualTo(-1);
        assertThat(t.isComplete()).isTrue();
    }

    @Test
    void aResultSetTerminatorWithSessionStateIsPointedOutAndAnEofFlagClearedInPlace() {
        ResponseTracker deprecateEof = new ResponseTracker(true);
        deprecateEof.expect(ResponseKind.RESULT, ResponseListener.NONE, true);
        ByteBuf columns = concat(packet(0x01), column());
        ByteBuf end = okWithState(0xFE, AUTOCOMMIT | SESSION_STATE_CHANGED);
        ByteBuf stream = concat(columns, row(), end);
        int settled = deprecateEof.scan(stream, 0, stream.writerIndex());
        assertThat(settled).isEqualTo(stream.writerIndex());
        assertThat(deprecateEof.takeRewrite()).isEqualTo(stream.writerIndex() - end.writerIndex());

        ResponseTracker classic = new ResponseTracker(false);
        classic.expect(ResponseKind.RESULT, ResponseListener.NONE, true);
        ByteBuf eofEnd = eof(AUTOCOMMIT | SESSION_STATE_CHANGED);
        ByteBuf classicStream = concat(packet(0x01), column(), eof(AUTOCOMMIT), row(), eofEnd);
        classic.scan(classicStream, 0, classicStream.writerIndex());
        assertThat(classic.takeRewrite()).isEqualTo(-1);
        assertThat(classicStream.getUnsignedShortLE(classicStream.writerIndex() - 2)).as("flag cleared")
                .isEqualTo(AUTOCOMMIT);
        assertThat(classic.lastStatus() & SESSION_STATE_CHANGED).as("routing still sees it").isNotZero();
    }
}
