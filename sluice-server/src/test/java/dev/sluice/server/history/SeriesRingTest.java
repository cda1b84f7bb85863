package dev.sluice.server.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SeriesRingTest {

    @Test
    void keepsTheLastValuesOldestFirst() {
        SeriesRing ring = new SeriesRing(3);
        ring.add(1);
        ring.add(2);
        assertThat(ring.toList()).containsExactly(1.0, 2.0);
        ring.add(3);
        ring.add(4);
        ring.add(5);
        assertThat(ring.size()).isEqualTo(3);
        assertThat(ring.toList()).containsExactly(3.0, 4.0, 5.0);
        assertThat(ring.get(0)).isEqualTo(3.0);
    }

    @Test
    void aMissingValueIsNullAndARingOfThemIsBlank() {
        SeriesRing ring = new SeriesRing(2);
        ring.add(Double.NaN);
        assertThat(ring.isBlank()).isTrue();
        assertThat(ring.toList()).containsExactly((Double) null);
        ring.add(7);
        assertThat(ring.isBlank()).isFalse();
        assertThat(ring.toList()).isEqualTo(Arrays.asList(null, 7.0));
        ring.add(Double.NaN);
        ring.add(Double.NaN);
        assertThat(ring.isBlank()).as("the value left the window").isTrue();
    }

    @Test
    void anEmptyRingIsBlankAndHasNoValues() {
        SeriesRing ring = new SeriesRing(4);
        assertThat(ring.isBlank()).isTrue();
        assertThat(ring.toList()).isEmpty();
        assertThatThrownBy(() -> ring.get(0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new SeriesRing(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
