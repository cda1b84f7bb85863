package dev.sluice.server.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records every buffer leak Netty's detector reports in this JVM so a test can fail on it (the
 * surefire configuration sets {@code io.netty.leakDetection.level=paranoid}). It must be installed
 * before Netty's buffer classes load: every test class that starts Netty calls {@link #install()}
 * from its static initializer, and {@link NettyLeakRecorderTest} proves the recorder sees leaks.
 */
public final class NettyLeakRecorder {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static final int GC_ROUNDS = 5;
    private static final long GC_PAUSE_MS = 50;
    private static volatile boolean installed;

    private NettyLeakRecorder() {
    }

    public static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                    long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval, maxActive) {
                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.add(resourceType + " leaked:" + records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.add(resourceType + " leaked (untraced)");
                    }
                };
            }
        });
    }

    /** Forces collection and detection, then returns the leaks seen so far (and forgets them). */
    public static List<String> collect() throws InterruptedException {
        for (int i = 0; i < GC_ROUNDS; i++) {
            System.gc();
            Thread.sleep(GC_PAUSE_MS);
            // Detection runs when a tracked buffer is allocated: allocate one to drain the queue.
            ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(1);
            probe.release();
        }
        List<String> out = new ArrayList<>(LEAKS);
        LEAKS.clear();
        return out;
    }
}
