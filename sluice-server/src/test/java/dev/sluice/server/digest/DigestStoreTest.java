package dev.sluice.server.digest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.sql.StatementDigest;
import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** BEHAVIOUR §12: the digests kept per I/O thread, bounded, summed and ordered for the admin API. */
class DigestStoreTest {
    private static final long MS = 1_000_000;
    private final StatementDigest digest = new StatementDigest();
    private final DigestStore small = new DigestStore(10);
    private final LoopDigests d = small.forLoop(ImmediateEventExecutor.INSTANCE);

    private DigestEntry find(LoopDigests d, String sql, String endpoint) {
        return d.find(digest.digest(sql), endpoint, "app", "test");
    }

    @Test
    void aDigestSeenBeforeIsTheSameEntryAndItsFiguresAddUp() {
        DigestEntry first = find(d, "SELECT * FROM t WHERE id = 1", "rw");
        d.record(first, 2 * MS, false, 1, false, 1_000);
        DigestEntry again = find(d, "SELECT * FROM t WHERE id = 2", "rw");
        assertThat(again).isSameAs(first);
        d.record(again, 4 * MS, true, 0, true, 2_000);
        assertThat(find(d, "SELECT * FROM t WHERE id = 2", "ro")).as("another endpoint").isNotSameAs(first);
        assertThat(d.find(digest.digest("SELECT * FROM t WHERE id = 3"), "rw", "other", "test")).as("another account")
                .isNotSameAs(first);
        assertThat(d.find(digest.digest("SELECT * FROM t WHERE id = 3"), "rw", "app", "")).as("another schema")
                .isNotSameAs(first);

        DigestSummary s = top(Optional.of("rw"), DigestOrder.TOTAL, 10).get(0);
        assertThat(s.digest()).isEqualTo("SELECT * FROM t WHERE id = ?");
        assertThat(s.count()).isEqualTo(2);
        assertThat(s.errors()).isEqualTo(1);
        assertThat(s.totalMicros()).isEqualTo(6_000);
        assertThat(s.meanMicros()).isEqualTo(3_000);
        assertThat(s.maxMicros()).isEqualTo(4_000);
        assertThat(s.p99Micros()).isBetween(4_000L * 100 / 119, 4_000L);
        assertThat(s.rowsSent()).isEqualTo(1);
        assertThat(s.onPrimary()).isEqualTo(1);
        assertThat(s.onReplicas()).isEqualTo(1);
        assertThat(s.firstSeen()).isEqualTo("1970-01-01T00:00:01Z");
        assertThat(s.lastSeen()).isEqualTo("1970-01-01T00:00:02Z");
    }

    @Test
    void pastItsCapacityTheLeastCostlyDigestsFoldIntoTheEndpointsOtherRow() {
        for (int i = 0; i < 10; i++) {
            DigestEntry e = find(d, "SELECT c" + i + " FROM t", "rw");
            d.record(e, (i + 1) * MS, false, 0, false, 1_000);
        }
        DigestEntry cheapest = find(d, "SELECT c0 FROM t", "rw");
        DigestEntry newcomer = find(d, "SELECT c10 FROM t", "rw");
        d.record(newcomer, 50 * MS, false, 0, false, 1_000);
        assertThat(d.size()).isEqualTo(10);
        d.record(cheapest, MS, false, 0, false, 1_000);

        List<DigestSummary> rows = top(Optional.empty(), DigestOrder.TOTAL, 100);
        assertThat(rows).extracting(DigestSummary::digest).doesNotContain("SELECT c0 FROM t")
                .contains("SELECT c10 FROM t", "(other statements)").hasSize(11);
        DigestSummary other = rows.stream().filter(DigestSummary::other).findFirst().orElseThrow();
        assertThat(other.count()).as("the evicted digest, and what it recorded afterwards").isEqualTo(2);
        assertThat(other.totalMicros()).isEqualTo(2_000);
        assertThat(rows.stream().mapToLong(DigestSummary::count).sum()).as("no statement lost").isEqualTo(12);
    }

    @Test
    void ordersAndLimitsTheRows() {
        DigestEntry many = find(d, "SELECT 1", "rw");
        for (int i = 0; i < 5; i++) {
            d.record(many, MS, false, 0, false, 1_000);
        }
        DigestEntry slow = find(d, "SELECT 2, 3", "rw");
        d.record(slow, 20 * MS, false, 0, false, 1_000);
        DigestEntry middling = find(d, "SELECT 4, 5, 6", "ro");
        d.record(middling, 3 * MS, false, 0, false, 1_000);
        d.record(middling, 3 * MS, false, 0, false, 1_000);
        assertThat(top(Optional.empty(), DigestOrder.COUNT, 10)).extracting(DigestSummary::digest)
                .containsExactly("SELECT ?", "SELECT ?, ?, ?", "SELECT ?, ?");
        assertThat(top(Optional.empty(), DigestOrder.TOTAL, 10)).extracting(DigestSummary::digest)
                .containsExactly("SELECT ?, ?", "SELECT ?, ?, ?", "SELECT ?");
        assertThat(top(Optional.empty(), DigestOrder.P99, 2)).extracting(DigestSummary::digest)
                .containsExactly("SELECT ?, ?", "SELECT ?, ?, ?");
        assertThat(top(Optional.of("ro"), DigestOrder.TOTAL, 10)).extracting(DigestSummary::digest)
                .containsExactly("SELECT ?, ?, ?");
    }

    @Test
    void findingAndRecordingADigestSeenBeforeAllocatesNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        byte[] pointSelect = "SELECT c FROM sbtest1 WHERE id=5012".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] hinted = "/*FORCE_SLAVE*/ SELECT c FROM t WHERE id IN (1, 2, 3) AND k = 'x'"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String endpoint = "rw";
        String account = "app";
        String schema = "test";
        long allocated = 0;
        for (int round = 0; round < 2; round++) {
            // The first round makes the two entries and lets the JIT settle; the second is measured.
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 50_000; i++) {
                byte[] sql = (i & 1) == 0 ? pointSelect : hinted;
                DigestEntry e = d.find(d.digester().digest(sql, 0, sql.length,
                        dev.sluice.routing.sql.ClientCharset.UTF8MB4), endpoint, account, schema);
                d.record(e, 250_000, false, 1, false, 1_000);
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertThat(allocated).as("bytes allocated by 50,000 statements of known digests: under one a statement (a "
                + "key or a copy per statement would be a megabyte; what is left is the JIT's own upkeep)")
                .isLessThan(50_000);
        assertThat(top(Optional.empty(), DigestOrder.COUNT, 10)).extracting(DigestSummary::count)
                .containsExactly(50_000L, 50_000L);
    }

    @Test
    void aStatementRunningWhileTheDigestsAreClearedIsNotCounted() {
        DigestEntry running = find(d, "SELECT 1", "rw");
        d.clear();
        d.record(running, MS, false, 0, false, 1_000);
        assertThat(top(Optional.empty(), DigestOrder.TOTAL, 10)).isEmpty();
    }

    @Test
    void theSameDigestOnTwoThreadsIsOneRow() throws Exception {
        DigestStore store = new DigestStore();
        DefaultEventLoop a = new DefaultEventLoop();
        DefaultEventLoop b = new DefaultEventLoop();
        try {
            for (DefaultEventLoop loop : List.of(a, b)) {
                loop.submit(() -> {
                    LoopDigests d = store.forLoop(loop);
                    DigestEntry e = d.find(d.digester().digest("SELECT * FROM t WHERE id = 7"), "rw", "app", "test");
                    d.record(e, loop == a ? MS : 3 * MS, false, 1, loop == a, 1_000);
                }).get(5, TimeUnit.SECONDS);
            }
            List<DigestSummary> rows = store.top(Optional.empty(), DigestOrder.TOTAL, 10);
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0).count()).isEqualTo(2);
            assertThat(rows.get(0).onPrimary()).isEqualTo(1);
            assertThat(rows.get(0).onReplicas()).isEqualTo(1);
            assertThat(rows.get(0).maxMicros()).isEqualTo(3_000);
            store.clear();
            assertThat(store.top(Optional.empty(), DigestOrder.TOTAL, 10)).isEmpty();
        } finally {
            a.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            b.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private List<DigestSummary> top(Optional<String> endpoint, DigestOrder order, int limit) {
        return small.top(endpoint, order, limit);
    }
}
