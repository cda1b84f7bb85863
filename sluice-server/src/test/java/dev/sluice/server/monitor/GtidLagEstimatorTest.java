package dev.sluice.server.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.GtidPosition;
import org.junit.jupiter.api.Test;

class GtidLagEstimatorTest {
    private static final long SECOND = 1_000_000_000L;

    private static GtidPosition pos(String text) {
        return GtidPosition.parse(text).orElseThrow();
    }

    @Test
    void aReplicaThatHasEverythingHasNoLag() {
        GtidLagEstimator e = new GtidLagEstimator(10);
        e.primaryAt(0, pos("0-1-10"));
        e.primaryAt(SECOND, pos("0-1-20"));
        assertThat(e.lagSeconds(pos("0-1-20"), 5 * SECOND)).isZero();
    }

    @Test
    void lagRunsFromTheOldestPrimaryPositionTheReplicaLacks() {
        GtidLagEstimator e = new GtidLagEstimator(10);
        e.primaryAt(0, pos("0-1-10"));
        e.primaryAt(2 * SECOND, pos("0-1-20"));
        e.primaryAt(4 * SECOND, pos("0-1-30"));
        assertThat(e.lagSeconds(pos("0-1-15"), 7 * SECOND)).isEqualTo(5);
        assertThat(e.lagSeconds(pos("0-1-5"), 7 * SECOND)).isEqualTo(7);
    }

    @Test
    void anUnchangedPrimaryKeepsItsFirstSampleTime() {
        GtidLagEstimator e = new GtidLagEstimator(10);
        e.primaryAt(0, pos("0-1-10"));
        e.primaryAt(3 * SECOND, pos("0-1-10"));
        assertThat(e.lagSeconds(pos("0-1-9"), 6 * SECOND)).isEqualTo(6);
    }

    @Test
    void onlyTheNewestSamplesAreKept() {
        GtidLagEstimator e = new GtidLagEstimator(2);
        e.primaryAt(0, pos("0-1-1"));
        e.primaryAt(SECOND, pos("0-1-2"));
        e.primaryAt(2 * SECOND, pos("0-1-3"));
        assertThat(e.lagSeconds(pos("0-1-0"), 10 * SECOND)).isEqualTo(9);
        assertThat(e.latestPrimary()).contains(pos("0-1-3"));
    }

    @Test
    void theLagIsMeasuredOnlyForAPositionHoldingTheOldestSampleKept() {
        GtidLagEstimator e = new GtidLagEstimator(2);
        assertThat(e.measures(pos("0-1-10"))).as("nothing seen yet").isFalse();
        e.primaryAt(0, pos("0-1-10"));
        e.primaryAt(SECOND, pos("0-2-12"));
        assertThat(e.measures(pos("0-2-12"))).isTrue();
        assertThat(e.measures(pos("0-1-11"))).as("behind the newest, within the samples").isTrue();
        assertThat(e.measures(pos("0-1-9"))).as("behind every sample: a lower bound").isFalse();
        e.primaryAt(2 * SECOND, pos("0-2-13"));
        assertThat(e.measures(pos("0-1-11"))).as("its first missing sample was dropped").isFalse();
    }
}
