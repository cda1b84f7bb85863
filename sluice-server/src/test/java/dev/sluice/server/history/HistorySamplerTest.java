package dev.sluice.server.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.admin.ProxyDescription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HistorySamplerTest {
    private static final Duration STEP = Duration.ofMillis(20);
    private static final long STATEMENTS_PER_SAMPLE = 100;

    private static Readings reading(int n) {
        NodeDescription primary = new NodeDescription("primary", "127.0.0.1:3306", "primary", null, 1, "up", false,
                "none", null, null, false, Map.of("rw", new NodeDescription.NodeLoad(1, false, 0, 0,
                        n * STATEMENTS_PER_SAMPLE)));
        return new Readings(1_000 + n, n * TimeUnit.SECONDS.toNanos(1), new ProxyDescription("test", 1, List.of(),
                List.of(primary)), List.of(), Map.of(), Map.of());
    }

    @Test
    void aFailedReadingIsAGapAndTheSamplingGoesOn() throws Exception {
        RecentHistory history = new RecentHistory(Duration.ofSeconds(1), STEP);
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch fourCalls = new CountDownLatch(4);
        HistorySampler sampler = new HistorySampler(history, () -> {
            int n = calls.incrementAndGet();
            fourCalls.countDown();
            if (n == 1) {
                throw new IllegalStateException("the pools did not answer");
            }
            return reading(n);
        });
        sampler.start();
        try {
            assertThat(fourCalls.await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            sampler.close();
        }
        HistoryReport r = history.report();
        // The fourth call began, so the second and third were recorded; the first left no point.
        assertThat(r.times()).startsWith(1_002L, 1_003L);
        List<Double> statements = r.charts().get(0).series().get(0).values();
        assertThat(statements.get(0)).as("no rate without an earlier reading").isNull();
        assertThat(statements.get(1)).isEqualTo((double) STATEMENTS_PER_SAMPLE);
        assertThat(sampler.sampling()).as("closed, its thread is gone").isFalse();
    }
}
