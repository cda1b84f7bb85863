package dev.sluice.server.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Bounds the client packets one session holds: every packet the frame decoder produces is counted
 * (as a {@link BudgetedFrame}) until it is released — consumed by Sluice, or written out to a
 * backend socket — and while more than {@code limit} bytes are held, the client is not read.
 * Packets queued behind a slow command, pipelined by the client, or waiting in a slow backend's
 * outbound buffer all count.
 *
 * <p>Reading stops by turning {@code autoRead} off. The session turns it off and on too (by packet
 * count); the two never fight for long: a packet arriving while the budget is exhausted turns
 * reading off again, and this handler turns it on only once the held bytes fall to half the limit.
 * A packet is never held back for the budget, only reading more, so the worst case is the limit
 * plus the one packet being received (at most 16 MiB, a physical packet, and at most
 * {@code limits.max-packet-size}) plus one socket read.
 */
final class InboundBudget extends ChannelInboundHandlerAdapter {
    private final long limit;
    private ChannelHandlerContext ctx;
    private long held;
    private boolean paused;

    InboundBudget(long limit) {
        this.limit = limit;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf frame) {
            BudgetedFrame budgeted = BudgetedFrame.of(frame, this);
            held += budgeted.budgetedSize();
            if (held > limit) {
                paused = true;
                ctx.channel().config().setAutoRead(false);
            }
            ctx.fireChannelRead(budgeted);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /** The last reference to a packet of {@code size} bytes was released (on any thread). */
    void released(int size) {
        if (!ctx.executor().inEventLoop()) {
            try {
                ctx.executor().execute(() -> released(size));
            } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                // The event loop is gone, and the session with it: nothing left to resume.
            }
            return;
        }
        held -= size;
        if (paused && held <= limit / 2) {
            paused = false;
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Bytes of client packets held now (for tests). */
    long held() {
        return held;
    }
}
