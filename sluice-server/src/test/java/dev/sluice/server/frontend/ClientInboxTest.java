package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The session's phases: which client frame is taken when, and that CLOSED is final. */
class ClientInboxTest {
    private final EmbeddedChannel client = new EmbeddedChannel();
    private final List<ByteBuf> started = new ArrayList<>();
    private final ClientInbox inbox = new ClientInbox(client, started::add);

    @AfterEach
    void close() {
        started.forEach(ByteBuf::release);
        client.finishAndReleaseAll();
    }

    private static ByteBuf frame(int sequenceId, int... payload) {
        ByteBuf f = Unpooled.buffer().writeMediumLE(payload.length).writeByte(sequenceId);
        for (int b : payload) {
            f.writeByte(b);
        }
        return f;
    }

    @Test
    void aCommandIsTakenWhenIdleAndTheNextWaitsUntilTheFirstHasEnded() {
        inbox.add(frame(0, 3, 'a'));
        inbox.running();
        ByteBuf second = frame(0, 3, 'b');
        inbox.add(second);
        assertThat(started).hasSize(1);
        assertThat(inbox.replySequence()).isEqualTo(1);
        inbox.idle();
        inbox.drain();
        assertThat(started).hasSize(2).last().isSameAs(second);
    }

    @Test
    void theAnswerToAnAuthenticationRequestIsTakenWhileTheCommandRuns() {
        inbox.add(frame(0, 0x11));
        inbox.running();
        List<ByteBuf> answers = new ArrayList<>();
        inbox.authenticating(answers::add);
        inbox.add(frame(3, 1, 2, 3));
        assertThat(answers).hasSize(1);
        assertThat(inbox.phase()).isEqualTo(SessionPhase.RUNNING);
        assertThat(inbox.replySequence()).isEqualTo(4);
        answers.forEach(ByteBuf::release);
    }

    @Test
    void closedIsFinalWhateverCompletesAfterwardsAndLaterFramesAreReleasedAtOnce() {
        inbox.add(frame(0, 3, 'a'));
        inbox.running();
        ByteBuf queued = frame(0, 3, 'b');
        inbox.add(queued);
        inbox.close();
        assertThat(queued.refCnt()).as("a queued frame is released").isZero();
        inbox.uploading(null);
        inbox.sendingTail(null, true);
        inbox.authenticating(f -> { });
        inbox.idle();
        inbox.running();
        assertThat(inbox.phase()).isEqualTo(SessionPhase.CLOSED);
        ByteBuf late = frame(0, 3, 'c');
        inbox.add(late);
        assertThat(late.refCnt()).as("a frame after the end is never queued").isZero();
        assertThat(inbox.commandRunning()).isFalse();
    }
}
