package dev.sluice.server.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MissedChecksTest {
    @Test
    void aNodeIsDownOnlyAfterDownAfterMissedChecksInARow() {
        MissedChecks m = new MissedChecks(3);
        assertThat(m.missed()).isFalse();
        assertThat(m.missed()).isFalse();
        assertThat(m.missed()).isTrue();
        assertThat(m.missed()).as("a node that stays down stays down").isTrue();
        assertThat(m.inRow()).isEqualTo(3);
    }

    @Test
    void anAnsweredCheckStartsTheCountAgain() {
        MissedChecks m = new MissedChecks(2);
        assertThat(m.missed()).isFalse();
        m.answered();
        assertThat(m.missed()).as("one miss, an answer, one miss: never two in a row").isFalse();
        assertThat(m.missed()).isTrue();
        m.answered();
        assertThat(m.inRow()).isZero();
    }

    @Test
    void downAfterOneIsTheOldBehaviourOneMissIsDown() {
        assertThat(new MissedChecks(1).missed()).isTrue();
    }

    @Test
    void lessThanOneMissedCheckIsNoSetting() {
        assertThatThrownBy(() -> new MissedChecks(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
