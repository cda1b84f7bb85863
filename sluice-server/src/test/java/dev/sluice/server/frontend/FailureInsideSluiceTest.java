package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Command;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A command whose path fails inside Sluice costs its session only: the client hears why and the
 * session ends, and the command's packet is released exactly once — by the session when no path
 * took it, never a second time.
 */
class FailureInsideSluiceTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    /** No primary and no reachable replica: a command that is not a statement has no node to run on. */
    private void noNodeAnywhere() {
        h.topology.update(t -> t.withoutNode("primary"));
        h.nodeState("ro1", s -> s.withReachable(false));
        h.nodeState("ro2", s -> s.withReachable(false));
    }

    /** The client's packet, held once more by the test so that its release by the session shows. */
    private static ByteBuf packet(int command, String argument) {
        byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
        ByteBuf frame = Unpooled.buffer(5 + bytes.length).writeMediumLE(1 + bytes.length).writeByte(0)
                .writeByte(command).writeBytes(bytes);
        return frame.retain();
    }

    @Test
    void aPathThatThrowsBeforeTakingThePacketHasItReleasedOnceAndEndsTheSession() {
        noNodeAnywhere();
        ByteBuf fieldList = packet(Command.COM_FIELD_LIST, "t\0");
        h.c.raw(fieldList);
        assertThat(h.error()).startsWith("1105 ").contains("Sluice could not process this command");
        assertThat(h.clientOpen()).isFalse();
        assertThat(fieldList.refCnt()).as("released by the session, once").isEqualTo(1);
        fieldList.release();
    }

    @Test
    void aSessionCommandWithNoNodeToAnswerItIsReleasedOnceToo() {
        noNodeAnywhere();
        ByteBuf initDb = packet(Command.COM_INIT_DB, "test");
        h.c.raw(initDb);
        assertThat(h.error()).startsWith("1105 ");
        assertThat(h.clientOpen()).isFalse();
        assertThat(initDb.refCnt()).isEqualTo(1);
        initDb.release();
    }

    @Test
    void aCommandQueuedBehindTheFailedOneIsReleasedWithTheSession() {
        h.query("UPDATE t SET a = 1");
        ByteBuf queued = packet(Command.COM_FIELD_LIST, "t\0");
        h.c.raw(queued);
        noNodeAnywhere();
        h.backend("primary").takeClientCommand();
        h.backend("primary").ok();
        h.ok();
        assertThat(h.error()).startsWith("1105 ");
        assertThat(queued.refCnt()).isEqualTo(1);
        queued.release();
    }
}
