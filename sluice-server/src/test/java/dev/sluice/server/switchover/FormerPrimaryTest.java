package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.GtidPosition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Whether a failover's old primary may rejoin: how many of its transactions the new primary lacked
 * at its promotion ({@code ;} between domains). The new primary's later writes do not matter: they
 * are compared with the position at the promotion, never with the new primary's current one.
 */
class FormerPrimaryTest {

    @ParameterizedTest(name = "[{index}] promoted at {0}, old primary at {1} -> {2} unshipped")
    @CsvSource(delimiter = '|', textBlock = """
            0-1-100        | 0-1-100        | 0
            0-1-100        | 0-1-98         | 0
            0-1-100        | 0-1-103        | 3
            0-1-100;1-1-7  | 0-1-100        | 0
            0-1-100        | 0-1-100;1-1-2  | 2
            0-1-100        | ''             | 0
            """)
    void countsTheOldPrimarysCommitsTheNewOneNeverHad(String promotedAt, String oldPrimary, long unshipped) {
        assertThat(FormerPrimary.unshipped(at(promotedAt), at(oldPrimary))).isEqualTo(unshipped);
    }

    private static GtidPosition at(String list) {
        return GtidPosition.parse(list.replace(';', ',')).orElseThrow();
    }
}
