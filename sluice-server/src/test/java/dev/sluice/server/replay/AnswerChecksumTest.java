package dev.sluice.server.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Answers built packet by packet, as a server sends them; the checksum must see what a client could act on. */
class AnswerChecksumTest {
    private static final int IN_TRANS = 1;
    private static final int MORE_RESULTS = 1 << 3;
    private static final int NO_INDEX_USED = 1 << 5;
    private static final int SESSION_STATE_CHANGED = 1 << 14;

    @Test
    void anOkCountsByAffectedRowsInsertIdAndWarningsOnly() {
        long base = sum(false, answer(ok(1, 7, IN_TRANS, 0, "")));
        assertThat(sum(false, answer(ok(1, 7, IN_TRANS | NO_INDEX_USED, 0, "")))).as("status flags").isEqualTo(base);
        assertThat(sum(false, answer(ok(1, 7, IN_TRANS | SESSION_STATE_CHANGED, 0, "0-1-42"))))
                .as("session state: the GTID another server reports").isEqualTo(base);
        assertThat(sum(false, answer(ok(2, 7, IN_TRANS, 0, "")))).as("affected rows").isNotEqualTo(base);
        assertThat(sum(false, answer(ok(1, 8, IN_TRANS, 0, "")))).as("insert id").isNotEqualTo(base);
        assertThat(sum(false, answer(ok(1, 7, IN_TRANS, 1, "")))).as("warnings").isNotEqualTo(base);
    }

    @Test
    void anErrorCountsByItsCode() {
        long duplicate = sum(false, answer(err(1062, "Duplicate entry '1' for key 'PRIMARY'")));
        assertThat(sum(false, answer(err(1062, "Duplicate entry '1' for key 'PRIMARY'")))).isEqualTo(duplicate);
        assertThat(sum(false, answer(err(1213, "Deadlock found")))).isNotEqualTo(duplicate);
        assertThat(sum(false, answer(ok(0, 0, IN_TRANS, 0, "")))).isNotEqualTo(duplicate);
    }

    @Test
    void aResultSetCountsByColumnsRowsAndTerminatorWarnings() {
        for (boolean deprecateEof : new boolean[] {false, true}) {
            long base = sum(deprecateEof, resultSet(deprecateEof, "id", new String[] {"1", "2"}, IN_TRANS, 0));
            assertThat(sum(deprecateEof, resultSet(deprecateEof, "id", new String[] {"1", "2"}, IN_TRANS | NO_INDEX_USED,
                    0))).as("terminator status").isEqualTo(base);
            assertThat(sum(deprecateEof, resultSet(deprecateEof, "id", new String[] {"1", "3"}, IN_TRANS, 0)))
                    .as("a row").isNotEqualTo(base);
            assertThat(sum(deprecateEof, resultSet(deprecateEof, "id", new String[] {"1"}, IN_TRANS, 0)))
                    .as("a row less").isNotEqualTo(base);
            assertThat(sum(deprecateEof, resultSet(deprecateEof, "ix", new String[] {"1", "2"}, IN_TRANS, 0)))
                    .as("a column definition").isNotEqualTo(base);
            assertThat(sum(deprecateEof, resultSet(deprecateEof, "id", new String[] {"1", "2"}, IN_TRANS, 1)))
                    .as("terminator warnings").isNotEqualTo(base);
        }
    }

    @Test
    void rowsThatLookLikeTerminatorsAreRows() {
        // A row whose first column is the empty string starts with 0x00, like an OK.
        byte[] emptyFirst = resultSet(true, "v", new String[] {"", "x"}, IN_TRANS, 0);
        AnswerChecksum c = feed(true, emptyFirst, emptyFirst.length);
        assertThat(c.complete()).isTrue();
        assertThat(c.value()).isNotEqualTo(sum(true, resultSet(true, "v", new String[] {"y", "x"}, IN_TRANS, 0)));
    }

    @Test
    void theSameAnswerInPiecesOfAnySizeHasTheSameChecksum() {
        for (boolean deprecateEof : new boolean[] {false, true}) {
            byte[] a = resultSet(deprecateEof, "id", new String[] {"10", "20", "30"}, IN_TRANS, 0);
            long whole = sum(deprecateEof, a);
            for (int piece = 1; piece <= a.length; piece++) {
                AnswerChecksum c = feed(deprecateEof, a, piece);
                assertThat(c.complete()).as("pieces of %d", piece).isTrue();
                assertThat(c.value()).as("pieces of %d", piece).isEqualTo(whole);
            }
        }
    }

    @Test
    void moreResultsMakeOneAnswerThatEndsWithTheLast() {
        byte[] first = answer(ok(1, 0, IN_TRANS | MORE_RESULTS, 0, ""));
        byte[] second = resultSet(true, "n", new String[] {"5"}, IN_TRANS, 0);
        AnswerChecksum c = new AnswerChecksum(true);
        c.update(first, 0, first.length);
        assertThat(c.complete()).as("more results follow").isFalse();
        c.update(second, 0, second.length);
        assertThat(c.complete()).isTrue();
    }

    @Test
    void anAnswerCutShortIsNotComplete() {
        byte[] a = resultSet(false, "id", new String[] {"1"}, IN_TRANS, 0);
        assertThat(feedPart(false, a, a.length - 1).complete()).isFalse();
        assertThat(feedPart(false, a, 3).complete()).isFalse();
    }

    @Test
    void bytesAfterTheEndAreNotTheAnswerExpected() {
        byte[] twice = cat(answer(ok(1, 0, IN_TRANS, 0, "")), answer(ok(1, 0, IN_TRANS, 0, "")));
        assertThat(feed(false, twice, twice.length).complete()).isFalse();
    }

    @Test
    void aLocalInfileRequestIsSeen() {
        byte[] request = packet(0, cat(new byte[] {(byte) 0xFB}, "/tmp/x".getBytes(StandardCharsets.US_ASCII)));
        AnswerChecksum c = feed(false, request, request.length);
        assertThat(c.localInfile()).isTrue();
    }

    @Test
    void aBinaryResultSetCountsByItsRowsValuesAndNulls() {
        for (boolean deprecateEof : new boolean[] {false, true}) {
            long base = sum(deprecateEof, binaryResultSet(deprecateEof, new Long[] {1L, 2L}, IN_TRANS, 0));
            assertThat(sum(deprecateEof, binaryResultSet(deprecateEof, new Long[] {1L, 2L}, IN_TRANS | NO_INDEX_USED, 0)))
                    .as("terminator status").isEqualTo(base);
            assertThat(sum(deprecateEof, binaryResultSet(deprecateEof, new Long[] {1L, 3L}, IN_TRANS, 0)))
                    .as("a value").isNotEqualTo(base);
            assertThat(sum(deprecateEof, binaryResultSet(deprecateEof, new Long[] {1L, null}, IN_TRANS, 0)))
                    .as("a NULL").isNotEqualTo(base);
            assertThat(sum(deprecateEof, binaryResultSet(deprecateEof, new Long[] {1L}, IN_TRANS, 0)))
                    .as("a row less").isNotEqualTo(base);
            assertThat(sum(deprecateEof, binaryResultSet(deprecateEof, new Long[] {1L, 2L}, IN_TRANS, 1)))
                    .as("terminator warnings").isNotEqualTo(base);
        }
    }

    @Test
    void binaryRowsStartWithZeroAndAreNeverTakenForTheirTerminator() {
        // Every binary row starts with 0x00, as an OK does; rows of NULL and of zero are rows too.
        for (boolean deprecateEof : new boolean[] {false, true}) {
            byte[] a = binaryResultSet(deprecateEof, new Long[] {0L, null, 0L}, IN_TRANS, 0);
            AnswerChecksum c = feed(deprecateEof, a, a.length);
            assertThat(c.complete()).isTrue();
            assertThat(c.value()).isNotEqualTo(sum(deprecateEof, binaryResultSet(deprecateEof, new Long[] {0L, null},
                    IN_TRANS, 0)));
            for (int piece = 1; piece <= a.length; piece++) {
                assertThat(feed(deprecateEof, a, piece).value()).as("pieces of %d", piece)
                        .isEqualTo(sum(deprecateEof, a));
            }
            assertThat(feedPart(deprecateEof, a, a.length - 1).complete()).as("cut short").isFalse();
        }
    }

    @Test
    void anExecutionsOkAndErrorCountAsATextStatementsDo() {
        // COM_STMT_EXECUTE of an INSERT answers a plain OK; its checksum is the text protocol's.
        assertThat(sum(true, answer(ok(1, 5, IN_TRANS, 0, "")))).isEqualTo(sum(false, answer(ok(1, 5, IN_TRANS, 0,
                ""))));
        assertThat(sum(true, answer(err(1062, "Duplicate entry")))).isNotEqualTo(sum(true, answer(ok(1, 5, IN_TRANS,
                0, ""))));
    }

    // ---- answers, packet by packet ----

    /** One BIGINT column, binary rows (0x00, NULL bitmap at offset 2, 8-byte values), as an EXECUTE answers. */
    private static byte[] binaryResultSet(boolean deprecateEof, Long[] rows, int status, int warnings) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int seq = 1;
        out.writeBytes(packet(seq++, new byte[] {1}));
        out.writeBytes(packet(seq++, columnDefinition("n")));
        if (!deprecateEof) {
            out.writeBytes(packet(seq++, eof(status, 0)));
        }
        for (Long v : rows) {
            ByteArrayOutputStream r = new ByteArrayOutputStream();
            r.write(0x00);
            r.write(v == null ? 1 << 2 : 0);
            if (v != null) {
                for (int k = 0; k < 8; k++) {
                    r.write((int) (v >>> (8 * k)) & 0xFF);
                }
            }
            out.writeBytes(packet(seq++, r.toByteArray()));
        }
        if (deprecateEof) {
            byte[] end = ok(0, 0, status, warnings, "");
            end[0] = (byte) 0xFE;
            out.writeBytes(packet(seq, end));
        } else {
            out.writeBytes(packet(seq, eof(status, warnings)));
        }
        return out.toByteArray();
    }

    private static long sum(boolean deprecateEof, byte[] answer) {
        AnswerChecksum c = feed(deprecateEof, answer, answer.length);
        assertThat(c.complete()).isTrue();
        return c.value();
    }

    private static AnswerChecksum feed(boolean deprecateEof, byte[] answer, int piece) {
        AnswerChecksum c = new AnswerChecksum(deprecateEof);
        for (int i = 0; i < answer.length; i += piece) {
            c.update(answer, i, Math.min(piece, answer.length - i));
        }
        return c;
    }

    private static AnswerChecksum feedPart(boolean deprecateEof, byte[] answer, int length) {
        AnswerChecksum c = new AnswerChecksum(deprecateEof);
        c.update(answer, 0, length);
        return c;
    }

    private static byte[] answer(byte[] payload) {
        return packet(1, payload);
    }

    private static byte[] ok(long affected, long insertId, int status, int warnings, String gtid) {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(0x00);
        lenenc(p, affected);
        lenenc(p, insertId);
        u16(p, status);
        u16(p, warnings);
        if ((status & SESSION_STATE_CHANGED) != 0) {
            lenencString(p, "");
            byte[] gtidBytes = gtid.getBytes(StandardCharsets.US_ASCII);
            ByteArrayOutputStream change = new ByteArrayOutputStream();
            change.write(0); // the GTID-tracking type's encoding spec
            lenencString(change, gtid);
            ByteArrayOutputStream state = new ByteArrayOutputStream();
            state.write(3); // SESSION_TRACK_GTIDS
            lenenc(state, change.size());
            state.writeBytes(change.toByteArray());
            lenenc(p, state.size());
            p.writeBytes(state.toByteArray());
            assertThat(gtidBytes).isNotEmpty();
        }
        return p.toByteArray();
    }

    private static byte[] err(int code, String message) {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(0xFF);
        u16(p, code);
        p.writeBytes("#23000".getBytes(StandardCharsets.US_ASCII));
        p.writeBytes(message.getBytes(StandardCharsets.UTF_8));
        return p.toByteArray();
    }

    /** One column, text rows, ended by an EOF or (deprecateEof) a 0xFE-headed OK. */
    private static byte[] resultSet(boolean deprecateEof, String column, String[] rows, int status, int warnings) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int seq = 1;
        out.writeBytes(packet(seq++, new byte[] {1}));
        out.writeBytes(packet(seq++, columnDefinition(column)));
        if (!deprecateEof) {
            out.writeBytes(packet(seq++, eof(status, 0)));
        }
        for (String row : rows) {
            ByteArrayOutputStream r = new ByteArrayOutputStream();
            lenencString(r, row);
            out.writeBytes(packet(seq++, r.toByteArray()));
        }
        if (deprecateEof) {
            byte[] end = ok(0, 0, status, warnings, "");
            end[0] = (byte) 0xFE;
            out.writeBytes(packet(seq, end));
        } else {
            out.writeBytes(packet(seq, eof(status, warnings)));
        }
        return out.toByteArray();
    }

    private static byte[] columnDefinition(String name) {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        for (String s : new String[] {"def", "test", "t", "t", name, name}) {
            lenencString(p, s);
        }
        p.write(0x0C);
        u16(p, 63);
        p.writeBytes(new byte[] {11, 0, 0, 0, 3, 0, 0, 0, 0, 0});
        return p.toByteArray();
    }

    private static byte[] eof(int status, int warnings) {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(0xFE);
        u16(p, warnings);
        u16(p, status);
        return p.toByteArray();
    }

    private static byte[] packet(int seq, byte[] payload) {
        byte[] out = new byte[4 + payload.length];
        out[0] = (byte) payload.length;
        out[1] = (byte) (payload.length >>> 8);
        out[2] = (byte) (payload.length >>> 16);
        out[3] = (byte) seq;
        System.arraycopy(payload, 0, out, 4, payload.length);
        return out;
    }

    private static void lenenc(ByteArrayOutputStream p, long v) {
        if (v < 251) {
            p.write((int) v);
        } else {
            p.write(0xFC);
            u16(p, (int) v);
        }
    }

    private static void lenencString(ByteArrayOutputStream p, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        lenenc(p, b.length);
        p.writeBytes(b);
    }

    private static void u16(ByteArrayOutputStream p, int v) {
        p.write(v & 0xFF);
        p.write((v >>> 8) & 0xFF);
    }

    private static byte[] cat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
