package dev.sluice.protocol.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.protocol.NoLeaks;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseListener;
import dev.sluice.protocol.stream.ResponseTracker;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ResponseTracker} fed arbitrary bytes as the answer to any kind of command, in arbitrary
 * chunks, the way a backend connection feeds it: unsettled bytes are presented again with the
 * next read, and after a complete answer the tracker is re-armed for the next one. Whatever the
 * bytes, {@code scan} never throws and never returns an index outside {@code [from, to]}, its
 * listener only sees packets inside the scanned window, and every chunking ends the same answers
 * at the same offsets with the same status, reporting the same packets.
 *
 * <p>Input: one byte of settings (bits 0–2 the {@link ResponseKind}, bit 3 CLIENT_DEPRECATE_EOF,
 * bits 4–6 how far into the buffer the stream starts), one byte seeding the random chunkings, then
 * the stream.
 */
@ExtendWith(NoLeaks.class)
class ResponseTrackerFuzzTest {
    private static final ResponseKind[] KINDS = ResponseKind.values();
    /** Answers read from one stream; after that the rest of the stream is left alone. */
    private static final int MAX_ANSWERS = 8;
    private static final int TINY_CHUNK = 3;
    private static final int SMALL_CHUNK = 17;

    private final AccountedAllocator allocator = new AccountedAllocator();

    /** How one answer ended: where, and what the tracker reported. */
    private record Answer(long end, boolean complete, int lastStatus, boolean error, boolean localInfile,
                          List<String> packets) {
    }

    static Stream<byte[]> goldenExchanges() {
        return GoldenSeeds.exchanges().stream().flatMap(e -> {
            ResponseKind kind = switch (e.command()) {
                case 0x03, 0x17 -> ResponseKind.RESULT;
                case 0x16 -> ResponseKind.PREPARE;
                case 0x04 -> ResponseKind.FIELD_LIST;
                case 0x09 -> ResponseKind.STATISTICS;
                case 0x1c -> ResponseKind.FETCH;
                default -> ResponseKind.SINGLE;
            };
            return Stream.of(GoldenSeeds.prefixed(e.response(), kind.ordinal(), 7),
                    GoldenSeeds.prefixed(e.response(), kind.ordinal() | 1 << 3 | 3 << 4, 7));
        });
    }

    @MethodSource("goldenExchanges")
    @FuzzTest(maxDuration = FuzzBudget.PER_TARGET)
    void sameAnswersWhateverTheChunking(byte[] input) {
        if (input.length < 2) {
            return;
        }
        ResponseKind kind = KINDS[(input[0] & 7) % KINDS.length];
        boolean deprecateEof = (input[0] & 1 << 3) != 0;
        int offset = (input[0] >> 4) & 7;
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);

        List<Answer> whole = track(kind, deprecateEof, offset, stream, Chunkings.whole(stream.length));
        List<Answer> tiny = track(kind, deprecateEof, offset, stream,
                Chunkings.random(stream.length, input[1], TINY_CHUNK));
        require(tiny.equals(whole), "chunks of 1-3 bytes: " + tiny + ", whole: " + whole);
        List<Answer> small = track(kind, deprecateEof, offset, stream,
                Chunkings.random(stream.length, input[1], SMALL_CHUNK));
        require(small.equals(whole), "chunks of 1-17 bytes: " + small + ", whole: " + whole);
    }

    private List<Answer> track(ResponseKind kind, boolean deprecateEof, int offset, byte[] stream, int[] chunks) {
        ResponseTracker tracker = new ResponseTracker(deprecateEof);
        Window window = new Window();
        List<Answer> answers = new ArrayList<>();
        ByteBuf buf = allocator.buffer();
        try {
            buf.writeZero(offset).readerIndex(offset);
            tracker.expect(kind, window);
            int at = 0;
            for (int chunk : chunks) {
                buf.writeBytes(stream, at, chunk);
                at += chunk;
                while (answers.size() < MAX_ANSWERS) {
                    int from = buf.readerIndex();
                    int to = buf.writerIndex();
                    window.open(from, to);
                    int settled = tracker.scan(buf, from, to);
                    require(settled >= from && settled <= to, "scan(" + from + ", " + to + ") returned " + settled);
                    window.settle(settled);
                    buf.readerIndex(settled);
                    if (!tracker.isComplete()) {
                        break;
                    }
                    answers.add(window.answer(tracker, true));
                    tracker.reset();
                    tracker.expect(kind, window);
                }
            }
            if (answers.size() < MAX_ANSWERS) {
                answers.add(window.answer(tracker, false));
            }
        } finally {
            buf.release();
        }
        allocator.assertAllReleased();
        return answers;
    }

    /**
     * The listener: checks that every packet it is shown lies inside the window being scanned and
     * records it by its offset in the stream, which does not depend on the chunking.
     */
    private static final class Window implements ResponseListener {
        private int from;
        private int to;
        /** Stream offset of buffer index {@code from}. */
        private long streamOffset;
        private List<String> packets = new ArrayList<>();

        void open(int from, int to) {
            this.from = from;
            this.to = to;
        }

        void settle(int settled) {
            streamOffset += settled - from;
            from = settled;
        }

        Answer answer(ResponseTracker tracker, boolean complete) {
            Answer answer = new Answer(streamOffset, complete, tracker.lastStatus(), tracker.endedWithError(),
                    tracker.isLocalInfileRequest(), packets);
            packets = new ArrayList<>();
            return answer;
        }

        private void seen(String what, ByteBuf buf, int payloadIndex, int length) {
            require(length >= 0 && payloadIndex >= from && payloadIndex + length <= to,
                    what + " at [" + payloadIndex + ", +" + length + ") outside the window [" + from + ", " + to + ")");
            packets.add(what + "@" + (streamOffset + payloadIndex - from) + "+" + length);
        }

        @Override
        public void onOk(ByteBuf buf, int payloadIndex, int length) {
            seen("OK", buf, payloadIndex, length);
        }

        @Override
        public void onError(ByteBuf buf, int payloadIndex, int length) {
            seen("ERR", buf, payloadIndex, length);
        }

        @Override
        public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
            seen("PREPARE_OK", buf, payloadIndex, length);
        }

        @Override
        public void onLocalInfileRequest(ByteBuf buf, int payloadIndex, int length) {
            seen("LOCAL_INFILE", buf, payloadIndex, length);
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(Objects.requireNonNull(message));
        }
    }
}
