package dev.sluice.routing.gtid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MySqlGtidSetTest {

    private static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    private static final String B = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

    private static MySqlGtidSet parse(String text) {
        return MySqlGtidSet.parse(text).orElseThrow(() -> new AssertionError("did not parse: " + text));
    }

    @Test
    void parsesNormalisesAndPrints() {
        assertThat(parse(A + ":1-5").toString()).isEqualTo(A + ":1-5");
        assertThat(parse(A.toUpperCase() + ":7:1-3:4-5:9-9").toString()).isEqualTo(A + ":1-5:7:9");
        assertThat(parse(B + ":1-2,\n" + A + ":3").toString()).isEqualTo(A + ":3," + B + ":1-2");
        assertThat(parse(A + ":1-5," + A + ":6-8").toString()).isEqualTo(A + ":1-8");
        assertThat(parse("").isEmpty()).isTrue();
        assertThat(parse("  \n ").isEmpty()).isTrue();
    }

    @Test
    void understandsTaggedGtids() {
        MySqlGtidSet set = parse(A + ":1-5:batch:1-3:7");
        assertThat(set.toString()).isEqualTo(A + ":1-5," + A + ":batch:1-3:7");
        assertThat(set.contains(parse(A + ":batch:2"))).isTrue();
        assertThat(set.contains(parse(A + ":other:2"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {A, A + ":", A + ":0", A + ":5-3", A + ":1-", A + ":-3", A + ":x-1", A + ":1-5,",
        "3e11fa47-71ca-11e1-9e33:1-5", "3e11fa47x71ca-11e1-9e33-c80aa9429562:1", A + ":tag", A + ":1:tag",
        A + "::1", "0-1-5:", A + ":1-99999999999999999999", A + ":1 2"})
    void rejectsGarbage(String text) {
        assertThat(MySqlGtidSet.parse(text)).isEmpty();
    }

    @Test
    void containmentChecksEveryRangeNotAHighWaterMark() {
        MySqlGtidSet replica = parse(A + ":1-10:12-20");
        assertThat(replica.contains(parse(A + ":5-10"))).isTrue();
        assertThat(replica.contains(parse(A + ":11"))).as("gap").isFalse();
        assertThat(replica.contains(parse(A + ":19-21"))).isFalse();
        assertThat(replica.contains(parse(B + ":1"))).isFalse();
        assertThat(replica.contains(MySqlGtidSet.EMPTY)).isTrue();
        assertThat(replica.contains(MariaDbGtidList.parse("0-1-1").orElseThrow())).isFalse();
        assertThat(replica.missingCount(parse(A + ":8-25," + B + ":1-2"))).isEqualTo(1 + 5 + 2);
    }

    @Test
    void mergeIsUnion() {
        MySqlGtidSet merged = parse(A + ":1-3:7").merge(parse(A + ":4-5," + B + ":2"));
        assertThat(merged.toString()).isEqualTo(A + ":1-5:7," + B + ":2");
        assertThat(GtidPosition.parse(A + ":1").orElseThrow()
                .merge(MariaDbGtidList.parse("0-1-1").orElseThrow()).flavor()).isEqualTo(GtidFlavor.MARIADB);
    }

    @Test
    void randomSetsRoundTripAndContainTheirSubsets() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            StringBuilder text = new StringBuilder(random.nextBoolean() ? A : B);
            int ranges = 1 + random.nextInt(6);
            long[] bounds = new long[ranges * 2];
            for (int r = 0; r < ranges; r++) {
                long start = 1 + random.nextInt(1000);
                long end = start + random.nextInt(50);
                bounds[2 * r] = start;
                bounds[2 * r + 1] = end;
                text.append(':').append(start).append('-').append(end);
            }
            MySqlGtidSet set = parse(text.toString());
            assertThat(parse(set.toString())).as("seed %d: %s", seed, text).isEqualTo(set);
            int pick = random.nextInt(ranges);
            String subset = text.substring(0, 36) + ":" + bounds[2 * pick] + "-" + bounds[2 * pick + 1];
            assertThat(set.contains(parse(subset))).as("seed %d: %s ⊇ %s", seed, set, subset).isTrue();
            assertThat(set.missingCount(parse(subset))).as("seed %d", seed).isZero();
            long outside = 2_000 + random.nextInt(100);
            assertThat(set.contains(parse(text.substring(0, 36) + ":" + outside))).as("seed %d", seed).isFalse();
        }
    }
}
