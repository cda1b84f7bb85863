package dev.sluice.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SeedTest {
    @Test
    void seedsArePrintableWithoutNulOrDollar() {
        Random random = new Random(42);
        for (int i = 0; i < 1000; i++) {
            byte[] seed = Seed.generate(random);
            assertThat(seed).hasSize(Seed.LENGTH);
            for (byte b : seed) {
                assertThat((int) b).isBetween(0x21, 0x7E).isNotEqualTo((int) '$');
            }
        }
        assertThat(Seed.generate()).isNotEqualTo(Seed.generate());
    }
}
