package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Command;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bad input gets a MySQL error packet or a closed connection, never a hang (docs/ARCHITECTURE.md). */
class BadInputTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void anUnknownCommandByteGetsAnErrorAndTheSessionGoesOn() {
        h.send(0x63, new byte[] {1, 2, 3});
        assertThat(h.error()).startsWith("1047 ");
        assertThat(h.clientOpen()).isTrue();
        h.c.ping();
        h.ok();
        assertThat(h.nodes.all()).isEmpty();
    }

    @Test
    void aCommandThatNeedsAServerFeatureSluiceDoesNotRelayIsRefused() {
        h.send(Command.COM_BINLOG_DUMP, new byte[] {0, 0, 0, 0});
        assertThat(h.error()).startsWith("1047 ").contains("COM_BINLOG_DUMP");
        assertThat(h.nodes.all()).isEmpty();
    }

    @Test
    void anExecuteShorterThanItsFixedPartIsAMalformedPacket() {
        h.send(Command.COM_STMT_EXECUTE, new byte[] {1, 0});
        assertThat(h.error()).isEqualTo("1835 Malformed communication packet");
        assertThat(h.clientOpen()).isTrue();
    }

    @Test
    void aCloseShorterThanItsFixedPartIsDroppedSilentlyAsTheServerDoes() {
        h.send(Command.COM_STMT_CLOSE, new byte[] {1});
        assertThat(h.hasAnswer()).isFalse();
        h.c.ping();
        h.ok();
    }

    @Test
    void anEmptyPacketGetsAnErrorAndClosesTheConnection() {
        h.c.raw(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 0}));
        assertThat(h.error()).startsWith("1156 ");
        assertThat(h.clientOpen()).isFalse();
    }

    @Test
    void aMalformedPacketQueuedBehindACommandIsAnsweredInItsTurn() {
        h.query("UPDATE t SET a = 1");
        h.send(0x63, new byte[0]);
        assertThat(h.hasAnswer()).as("nothing out of turn").isFalse();
        h.backend("primary").takeClientCommand();
        h.backend("primary").ok();
        h.ok();
        assertThat(h.error()).startsWith("1047 ");
    }

    @Test
    void sluicesOwnErrorAnswersTheCommandWithTheNextSequenceId() {
        h.send(0x63, new byte[0]);
        h.error();
        assertThat(h.c.lastSequenceId()).isEqualTo(1);
    }
}
