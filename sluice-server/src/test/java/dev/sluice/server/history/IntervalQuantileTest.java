package dev.sluice.server.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.server.metrics.LatencyCounts;
import org.junit.jupiter.api.Test;

class IntervalQuantileTest {
    private static final double[] BOUNDS = LatencyCounts.boundsSeconds();

    /** Cumulative counts from counts per bucket; {@code above} is above the last bound. */
    private static LatencyCounts counts(long above, long... perBucket) {
        long[] cumulative = new long[BOUNDS.length];
        long sum = 0;
        for (int i = 0; i < BOUNDS.length; i++) {
            sum += i < perBucket.length ? perBucket[i] : 0;
            cumulative[i] = sum;
        }
        return new LatencyCounts(cumulative, sum + above);
    }

    @Test
    void theBoundsAreTheMetricsBuckets() {
        assertThat(BOUNDS).hasSize(16);
        assertThat(BOUNDS[0]).isEqualTo(0.0001);
        assertThat(BOUNDS[BOUNDS.length - 1]).isEqualTo(10.0);
    }

    @Test
    void interpolatesInsideTheBucketThatHoldsTheQuantile() {
        // 100 statements between 250 and 500 µs: the 99th is 99 % of the way through that bucket.
        LatencyCounts now = counts(0, 0, 0, 100);
        assertThat(IntervalQuantile.of(0.99, BOUNDS, LatencyCounts.NONE, now)).isCloseTo(0.00049750,
                within(1e-9));
    }

    @Test
    void onlyTheStatementsBetweenTheTwoReadingsCount() {
        // 1000 fast statements before; 10 slow ones (250–500 ms) since: the step's p99 is slow.
        LatencyCounts before = counts(0, 1000);
        long[] slow = new long[12];
        slow[0] = 1000;
        slow[11] = 10;
        LatencyCounts now = counts(0, slow);
        double p99 = IntervalQuantile.of(0.99, BOUNDS, before, now);
        assertThat(p99).isBetween(0.25, 0.5);
    }

    @Test
    void theFirstBucketStartsAtZero() {
        assertThat(IntervalQuantile.of(0.5, BOUNDS, LatencyCounts.NONE, counts(0, 10))).isCloseTo(0.00005,
                within(1e-12));
    }

    @Test
    void aboveTheLastBoundIsTheLastBound() {
        assertThat(IntervalQuantile.of(0.99, BOUNDS, LatencyCounts.NONE, counts(50, 50))).isEqualTo(10.0);
    }

    @Test
    void nothingCountedOrCountsThatWentBackwardsHaveNoQuantile() {
        LatencyCounts some = counts(0, 5, 5);
        assertThat(IntervalQuantile.of(0.99, BOUNDS, some, some)).isNaN();
        assertThat(IntervalQuantile.of(0.99, BOUNDS, counts(0, 50, 5), counts(0, 10, 100))).isNaN();
        assertThat(IntervalQuantile.of(0.99, BOUNDS, counts(0, 10), LatencyCounts.NONE)).isNaN();
    }
}
