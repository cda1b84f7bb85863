package dev.sluice.routing.gtid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MariaDbGtidListTest {

    private static MariaDbGtidList parse(String text) {
        return MariaDbGtidList.parse(text).orElseThrow(() -> new AssertionError("did not parse: " + text));
    }

    @Test
    void parsesAndPrintsCanonically() {
        assertThat(parse("0-1-42").toString()).isEqualTo("0-1-42");
        assertThat(parse(" 1-2-7 ,\n 0-1-42 ").toString()).isEqualTo("0-1-42,1-2-7");
        assertThat(parse("").isEmpty()).isTrue();
        assertThat(parse("4294967295-4294967295-9223372036854775807").toString())
                .isEqualTo("4294967295-4294967295-9223372036854775807");
    }

    @Test
    void aDomainListedTwiceKeepsItsHighestSequence() {
        assertThat(parse("0-1-5,0-2-9,0-1-7").toString()).isEqualTo("0-2-9");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0-1", "0-1-", "-1-2-3", "0-1-x", "a-b-c", "0-1-5,", ",0-1-5", "0-1-5,,1-1-1",
        "0--1-5", "4294967296-1-1", "0-4294967296-1", "0-1-99999999999999999999", "0 1 5", "0-1-5;1-1-1",
        "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"})
    void rejectsGarbage(String text) {
        assertThat(MariaDbGtidList.parse(text)).isEmpty();
    }

    @Test
    void containmentIsPerDomainByHighWaterMark() {
        MariaDbGtidList replica = parse("0-1-100,1-2-50");
        assertThat(replica.contains(parse("0-1-100"))).isTrue();
        assertThat(replica.contains(parse("0-9-99"))).isTrue();
        assertThat(replica.contains(parse("0-1-101"))).isFalse();
        assertThat(replica.contains(parse("0-1-10,1-2-50"))).isTrue();
        assertThat(replica.contains(parse("2-1-1"))).isFalse();
        assertThat(replica.contains(MariaDbGtidList.EMPTY)).isTrue();
        assertThat(MariaDbGtidList.EMPTY.contains(replica)).isFalse();
        assertThat(replica.contains(MySqlGtidSet.EMPTY)).isTrue();
        assertThat(replica.contains(MySqlGtidSet.parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1").orElseThrow()))
                .isFalse();
    }

    @Test
    void missingCountMeasuresDistance() {
        MariaDbGtidList replica = parse("0-1-90,1-1-5");
        assertThat(replica.missingCount(parse("0-1-100"))).isEqualTo(10);
        assertThat(replica.missingCount(parse("0-1-100,1-1-7,2-1-3"))).isEqualTo(15);
        assertThat(replica.missingCount(parse("0-1-50"))).isZero();
    }

    @Test
    void mergeTakesTheHigherSequencePerDomain() {
        MariaDbGtidList merged = parse("0-1-10,2-1-3").merge(parse("0-2-12,1-1-1,2-1-1"));
        assertThat(merged.toString()).isEqualTo("0-2-12,1-1-1,2-1-3");
    }

    @Test
    void roundTripsRandomLists() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            StringBuilder text = new StringBuilder();
            int n = 1 + random.nextInt(5);
            for (int d = 0; d < n; d++) {
                if (d > 0) {
                    text.append(random.nextBoolean() ? "," : " ,\n ");
                }
                text.append(random.nextInt(1000)).append('-').append(random.nextInt(1 << 30)).append('-')
                        .append(random.nextLong() & Long.MAX_VALUE);
            }
            MariaDbGtidList list = MariaDbGtidList.parse(text).orElseThrow(() -> new AssertionError("seed " + seed));
            assertThat(MariaDbGtidList.parse(list.toString())).as("seed %d: %s", seed, text).contains(list);
            assertThat(list.contains(list)).as("seed %d", seed).isTrue();
            assertThat(list.merge(list)).as("seed %d", seed).isEqualTo(list);
        }
    }
}
