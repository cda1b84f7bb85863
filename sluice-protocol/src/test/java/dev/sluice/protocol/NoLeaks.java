package dev.sluice.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty's leak detector (paranoid in this build) reports a buffer
 * that was garbage-collected without being released. After the class, it collects garbage
 * and allocates a few tracked buffers, which is when the detector reports.
 */
public final class NoLeaks implements AfterAllCallback {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static final int GC_ROUNDS = 5;

    static {
        try {
            Field field = AbstractByteBuf.class.getDeclaredField("leakDetector");
            field.setAccessible(true);
            ResourceLeakDetector<?> detector = (ResourceLeakDetector<?>) field.get(null);
            detector.setLeakListener((type, records) -> LEAKS.add(type + ": " + records));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        for (int i = 0; i < GC_ROUNDS; i++) {
            System.gc();
            Thread.sleep(20);
            ByteBuf a = PooledByteBufAllocator.DEFAULT.buffer(8);
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(8);
            a.release();
            b.release();
        }
        List<String> found = List.copyOf(LEAKS);
        LEAKS.clear();
        assertThat(found).as("leaked buffers").isEmpty();
    }
}
