package dev.sluice.server.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.WrappedByteBuf;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client packet counted against its session's {@link InboundBudget} until the last reference to
 * it is released — whether the session drops it, or a backend channel has written it out. Retained
 * duplicates and slices are budgeted frames too, sharing the count, so a copy kept for a read
 * retry holds the budget as long as it lives. (Plain, non-retained slices and duplicates live and
 * die with their parent and need no count of their own.)
 */
final class BudgetedFrame extends WrappedByteBuf {
    private final Share share;

    /** What all the references to one client packet have in common. */
    private static final class Share {
        private final InboundBudget budget;
        private final int size;
        private final AtomicInteger references = new AtomicInteger(1);

        Share(InboundBudget budget, int size) {
            this.budget = budget;
            this.size = size;
        }
    }

    private BudgetedFrame(ByteBuf frame, Share share) {
        super(frame);
        this.share = share;
    }

    static BudgetedFrame of(ByteBuf frame, InboundBudget budget) {
        return new BudgetedFrame(frame, new Share(budget, frame.readableBytes()));
    }

    int budgetedSize() {
        return share.size;
    }

    private BudgetedFrame derived(ByteBuf retained) {
        share.references.incrementAndGet();
        return new BudgetedFrame(retained, share);
    }

    @Override
    public ByteBuf retain() {
        return retain(1);
    }

    @Override
    public ByteBuf retain(int increment) {
        buf.retain(increment);
        share.references.addAndGet(increment);
        return this;
    }

    @Override
    public boolean release() {
        return release(1);
    }

    @Override
    public boolean release(int decrement) {
        boolean freed = buf.release(decrement);
        if (share.references.addAndGet(-decrement) == 0) {
            share.budget.released(share.size);
        }
        return freed;
    }

    @Override
    public ByteBuf retainedDuplicate() {
        return derived(buf.retainedDuplicate());
    }

    @Override
    public ByteBuf retainedSlice() {
        return derived(buf.retainedSlice());
    }

    @Override
    public ByteBuf retainedSlice(int index, int length) {
        return derived(buf.retainedSlice(index, length));
    }

    @Override
    public ByteBuf readRetainedSlice(int length) {
        return derived(buf.readRetainedSlice(length));
    }

    @Override
    public ByteBuf touch() {
        buf.touch();
        return this;
    }

    @Override
    public ByteBuf touch(Object hint) {
        buf.touch(hint);
        return this;
    }
}
