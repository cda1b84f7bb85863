package dev.sluice.protocol.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;

/**
 * An allocator that counts every byte it hands out, so that a fuzz target can prove, input by
 * input, that everything allocated for (or by) the code under test was released. Netty's leak
 * detector (paranoid in this build, see {@code NoLeaks}) only notices a leak when the garbage
 * collector finds it, long after the input that caused it; this check fails on that very input,
 * which Jazzer then keeps as a reproducer. Heap buffers: paranoid tracking of direct ones records
 * a stack trace per access, which would cut the fuzzer's speed a hundredfold.
 */
final class AccountedAllocator {
    private final UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(false);

    ByteBufAllocator allocator() {
        return allocator;
    }

    ByteBuf wrap(byte[] bytes, int from, int to) {
        return allocator.heapBuffer(Math.max(to - from, 1)).writeBytes(bytes, from, to - from);
    }

    ByteBuf buffer() {
        return allocator.heapBuffer();
    }

    /** Fails unless every buffer this allocator handed out has been released. */
    void assertAllReleased() {
        ByteBufAllocatorMetric metric = allocator.metric();
        if (metric.usedHeapMemory() != 0 || metric.usedDirectMemory() != 0) {
            throw new AssertionError("buffers not released: " + metric);
        }
    }
}
