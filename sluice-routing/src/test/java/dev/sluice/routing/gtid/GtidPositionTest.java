package dev.sluice.routing.gtid;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GtidPositionTest {

    @Test
    void detectsTheFlavour() {
        assertThat(GtidPosition.parse("0-1-5").orElseThrow().flavor()).isEqualTo(GtidFlavor.MARIADB);
        assertThat(GtidPosition.parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5").orElseThrow().flavor())
                .isEqualTo(GtidFlavor.MYSQL);
        assertThat(GtidPosition.parse("nonsense")).isEmpty();
        assertThat(GtidPosition.parse("nonsense:1")).isEmpty();
        assertThat(GtidPosition.parse("").orElseThrow().isEmpty()).isTrue();
    }
}
