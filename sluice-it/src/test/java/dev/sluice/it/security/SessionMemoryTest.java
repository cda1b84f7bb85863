package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.SandboxCluster;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code limits.session-memory}: a client that pipelines megabyte queries behind a slow one is not
 * read any more once its session holds its share, so Sluice's buffers stay small — the rest waits
 * in the kernel's socket buffers and the client's writes block — and everything is answered,
 * in order, once the slow query ends.
 */
class SessionMemoryTest {
    private static final int QUERY_SIZE = 1 << 20;
    private static final int QUERIES = 96;
    private static final int SLEEP_SECONDS = 8;
    /**
     * Without the bound, the session would hold its whole queue: 64 packets of 1 MiB. With it, a
     * few hundred KiB plus the packet being received; this leaves room for the bystander and noise.
     */
    private static final long MAX_GROWTH = 24L << 20;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            limits: {session-memory: 256k}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """);

    private static long nettyMemory() {
        ByteBufAllocatorMetric m = ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
        return m.usedDirectMemory() + m.usedHeapMemory();
    }

    private static byte[] lengthQuery(int i) {
        byte[] prefix = ("\u0003SELECT " + i + ", LENGTH('").getBytes(StandardCharsets.US_ASCII);
        byte[] suffix = "')".getBytes(StandardCharsets.US_ASCII);
        byte[] q = new byte[QUERY_SIZE];
        Arrays.fill(q, (byte) 'x');
        System.arraycopy(prefix, 0, q, 0, prefix.length);
        System.arraycopy(suffix, 0, q, q.length - suffix.length, suffix.length);
        return q;
    }

    @Test
    void queriesPipelinedBehindASlowOneStayInTheKernelNotInSluice() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", READ_TIMEOUT)) {
            long before = nettyMemory();
            c.sendQuery("SELECT SLEEP(" + SLEEP_SECONDS + ")");
            AtomicInteger written = new AtomicInteger();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 1; i <= QUERIES; i++) {
                        c.writePacket(0, lengthQuery(i));
                        written.incrementAndGet();
                    }
                } catch (Exception e) {
                    // the test fails on the answers below
                }
            }, "pipelining-writer");
            writer.setDaemon(true);
            writer.start();
            Thread.sleep(Duration.ofSeconds(SLEEP_SECONDS).toMillis() * 3 / 4);
            long growth = nettyMemory() - before;
            int sentWhileSlow = written.get();
            System.out.printf("[session-memory] while the slow query ran: %d of %d MiB queries written, Netty memory "
                    + "+%d KiB%n", sentWhileSlow, QUERIES, growth >> 10);
            assertThat(sentWhileSlow).as("the client's writes block: Sluice stopped reading").isLessThan(QUERIES);
            assertThat(growth).as("what Sluice holds for the session").isLessThan(MAX_GROWTH);

            assertThat(c.readResult()).containsExactly(List.of("0"));
            int expected = QUERY_SIZE - ("\u0003SELECT 1, LENGTH('").length() - 2;
            for (int i = 1; i <= QUERIES; i++) {
                int len = QUERY_SIZE - ("\u0003SELECT " + i + ", LENGTH('").length() - 2;
                assertThat(c.readResult()).containsExactly(List.of(Integer.toString(i), Integer.toString(len)));
            }
            writer.join(READ_TIMEOUT.toMillis());
            assertThat(written.get()).isEqualTo(QUERIES);
            assertThat(expected).isPositive();
        }
    }
}
