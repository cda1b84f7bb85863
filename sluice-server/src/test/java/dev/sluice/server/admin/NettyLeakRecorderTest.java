package dev.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak checks of the admin tests mean something only if the recorder really sees a leak. */
class NettyLeakRecorderTest {
    static {
        NettyLeakRecorder.install();
    }

    private static final int ATTEMPTS = 20;

    @Test
    void aBufferDroppedWithoutReleaseIsReported() throws InterruptedException {
        leakOne();
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < ATTEMPTS && seen.isEmpty(); i++) {
            seen.addAll(NettyLeakRecorder.collect());
        }
        assertThat(seen).as("the recorder must be installed before Netty's buffers load").isNotEmpty();
        assertThat(seen.get(0)).contains("ByteBuf").contains("leakOne");
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(16);
        leaked.writeInt(42);
        leaked.readInt();
    }
}
