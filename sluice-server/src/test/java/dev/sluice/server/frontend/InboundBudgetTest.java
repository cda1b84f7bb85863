package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class InboundBudgetTest {
    private static final int LIMIT = 1000;

    private static ByteBuf packet(int size) {
        return Unpooled.buffer(size).writeZero(size);
    }

    @Test
    void readingStopsAboveTheLimitAndResumesAtHalfOfIt() {
        InboundBudget budget = new InboundBudget(LIMIT);
        EmbeddedChannel ch = new EmbeddedChannel(budget);
        ch.writeInbound(packet(600));
        assertThat(ch.config().isAutoRead()).isTrue();
        ch.writeInbound(packet(600));
        assertThat(budget.held()).isEqualTo(1200);
        assertThat(ch.config().isAutoRead()).isFalse();
        ByteBuf first = ch.readInbound();
        ByteBuf second = ch.readInbound();
        assertThat(first).isInstanceOf(BudgetedFrame.class);
        first.release();
        assertThat(budget.held()).isEqualTo(600);
        assertThat(ch.config().isAutoRead()).isFalse();
        second.release();
        assertThat(budget.held()).isZero();
        assertThat(ch.config().isAutoRead()).isTrue();
        ch.finishAndReleaseAll();
    }

    @Test
    void aRetainedCopyHoldsTheBudgetUntilItIsReleasedToo() {
        InboundBudget budget = new InboundBudget(LIMIT);
        EmbeddedChannel ch = new EmbeddedChannel(budget);
        ch.writeInbound(packet(100));
        ByteBuf frame = ch.readInbound();
        ByteBuf copy = frame.retainedDuplicate();
        ByteBuf slice = frame.retainedSlice(0, 10);
        frame.retain();
        frame.release();
        frame.release();
        assertThat(budget.held()).isEqualTo(100);
        copy.release();
        assertThat(budget.held()).isEqualTo(100);
        slice.release();
        assertThat(budget.held()).isZero();
        assertThat(frame.refCnt()).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void theSessionTurningReadingBackOnIsUndoneByTheNextPacket() {
        InboundBudget budget = new InboundBudget(LIMIT);
        EmbeddedChannel ch = new EmbeddedChannel(budget);
        ch.writeInbound(packet(1500));
        assertThat(ch.config().isAutoRead()).isFalse();
        ch.config().setAutoRead(true); // the session's own count-based control
        ch.writeInbound(packet(10));
        assertThat(ch.config().isAutoRead()).isFalse();
        ch.finishAndReleaseAll();
        assertThat(budget.held()).isZero();
    }

    @Test
    void theSessionShareFollowsTheConfiguredMemory() {
        SessionMemory d = SessionMemory.of(4L << 20);
        assertThat(d.outbound().high()).isEqualTo(512 * 1024);
        assertThat(d.outbound().low()).isEqualTo(128 * 1024);
        assertThat(d.inbound() + d.outbound().high()).isEqualTo(4L << 20);
    }
}
