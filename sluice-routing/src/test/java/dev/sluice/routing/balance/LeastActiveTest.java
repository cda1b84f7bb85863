package dev.sluice.routing.balance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** BEHAVIOUR §2 least-active balancer. */
class LeastActiveTest {

    private static final int[] IDS = {0, 1, 2};
    private static final String[] NAMES = {"primary", "ro1", "ro2"};

    private static String pick(int[] weights, int[] active, long candidates) {
        int p = LeastActive.INSTANCE.pick(IDS, candidates, id -> weights[id], id -> active[id]);
        return p == Balancer.NO_PICK ? "none" : NAMES[p];
    }

    @ParameterizedTest(name = "weights 100/200/200, active ({0},{1},{2}) -> {3}")
    @CsvSource({"1,5,6,primary", "2,4,6,ro1", "2,5,3,ro2", "1,2,3,ro1", "1,2,1,ro2", "0,3,3,primary"})
    void reproducesTheSpecExamples(int a0, int a1, int a2, String expected) {
        assertThat(pick(new int[] {100, 200, 200}, new int[] {a0, a1, a2}, 0b111)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "weights {0}/{1}/{2}, active ({3},{4},{5}) -> {6}")
    @CsvSource({
        // equal ratio: the higher weight wins
        "100,200,200,1,3,5,ro1",
        // equal ratio and weight: configuration order
        "100,100,100,2,2,2,primary",
        "100,100,100,3,2,2,ro1",
        // weight 0 never wins, even idle
        "0,100,100,0,9,9,ro1",
        "0,0,0,0,0,0,none",
        // a negative count from a racing decrement counts as idle
        "100,100,100,5,-1,5,ro1"})
    void breaksTiesAsSpecified(int w0, int w1, int w2, int a0, int a1, int a2, String expected) {
        assertThat(pick(new int[] {w0, w1, w2}, new int[] {a0, a1, a2}, 0b111)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "candidates {0} -> {1}")
    @CsvSource({"6,ro1", "4,ro2", "1,primary", "0,none"})
    void picksOnlyAmongCandidates(long candidates, String expected) {
        assertThat(pick(new int[] {100, 200, 200}, new int[] {0, 0, 0}, candidates)).isEqualTo(expected);
    }
}
