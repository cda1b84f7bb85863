package dev.sluice.routing.balance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** BEHAVIOUR §2 weighted balancer. */
class SmoothWeightedRoundRobinTest {

    private static final int[] IDS = {0, 1, 2};
    private static final String[] NAMES = {"primary", "ro1", "ro2"};
    private static final long ALL = 0b111;

    private static WeightSource weights(int... byId) {
        return id -> id < byId.length ? byId[id] : 0;
    }

    private static List<String> picks(SmoothWeightedRoundRobin rr, long candidates, WeightSource w, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int p = rr.pick(IDS, candidates, w, ActiveRequests.NONE);
            out.add(p == Balancer.NO_PICK ? "none" : NAMES[p]);
        }
        return out;
    }

    @Test
    void reproducesTheSpecSequence() {
        SmoothWeightedRoundRobin rr = new SmoothWeightedRoundRobin();
        assertThat(picks(rr, ALL, weights(100, 200, 200), 10)).containsExactly(
                "primary", "ro1", "ro2", "ro1", "ro2", "primary", "ro1", "ro2", "ro1", "ro2");
    }

    @Test
    void reproducesTheSpecCurrentValues() {
        SmoothWeightedRoundRobin rr = new SmoothWeightedRoundRobin();
        WeightSource w = weights(100, 200, 200);
        long[][] expectedBeforeRound = {{0, 0, 0}, {-400, 200, 200}, {-300, -100, 400}, {-200, 100, 100},
            {-100, -200, 300}, {0, 0, 0}};
        for (long[] expected : expectedBeforeRound) {
            assertThat(new long[] {rr.currentOf(0), rr.currentOf(1), rr.currentOf(2)}).containsExactly(expected);
            rr.pick(IDS, ALL, w, ActiveRequests.NONE);
        }
    }

    @Test
    void spreadsExactlyByWeight() {
        SmoothWeightedRoundRobin rr = new SmoothWeightedRoundRobin();
        int[] counts = new int[3];
        for (int i = 0; i < 700; i++) {
            counts[rr.pick(IDS, ALL, weights(100, 200, 400), ActiveRequests.NONE)]++;
        }
        assertThat(counts).containsExactly(100, 200, 400);
    }

    @Test
    void onlyCandidatesTakePartAndWeightZeroNeverWins() {
        SmoothWeightedRoundRobin rr = new SmoothWeightedRoundRobin();
        assertThat(picks(rr, 0b110, weights(100, 200, 200), 4)).containsExactly("ro1", "ro2", "ro1", "ro2");
        assertThat(picks(rr, ALL, weights(0, 0, 300), 3)).containsExactly("ro2", "ro2", "ro2");
        assertThat(picks(rr, ALL, weights(0, 0, 0), 1)).containsExactly("none");
        assertThat(picks(rr, 0, weights(1, 1, 1), 1)).containsExactly("none");
    }

    @Test
    void isSafeUnderConcurrentPicks() throws InterruptedException {
        SmoothWeightedRoundRobin rr = new SmoothWeightedRoundRobin();
        WeightSource w = weights(100, 200, 200);
        int threads = 4;
        int perThread = 25_000;
        AtomicIntegerArray counts = new AtomicIntegerArray(3);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < perThread; i++) {
                    counts.incrementAndGet(rr.pick(IDS, ALL, w, ActiveRequests.NONE));
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        // 100000 picks = 20000 full rounds of 5: exact proportions, and the state is back to zero
        assertThat(new int[] {counts.get(0), counts.get(1), counts.get(2)}).containsExactly(20_000, 40_000, 40_000);
        assertThat(new long[] {rr.currentOf(0), rr.currentOf(1), rr.currentOf(2)}).containsExactly(0, 0, 0);
    }
}
