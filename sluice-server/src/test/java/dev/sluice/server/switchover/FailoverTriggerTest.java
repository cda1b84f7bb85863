package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When {@code failover: auto} starts a failover, as a table of check outcomes in order: {@code P}
 * a check of the primary missed, {@code p} one answered, {@code R} a replica's missed. The outcome
 * lists the 1-based positions of the misses that start a failover.
 */
class FailoverTriggerTest {

    @ParameterizedTest(name = "[{index}] {0}, failover-after {1}, down-after {2}: {3} -> {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # mode   | failover-after | down-after | checks     | fires at
            auto     | 3              | 2          | PPPPPP     | 3
            auto     | 3              | 2          | PPpPPP     | 6
            auto     | 3              | 2          | PPRRR      | -
            auto     | 3              | 2          | PRPRP      | 5
            auto     | 1              | 2          | PPP        | 2
            auto     | 1              | 1          | PpP        | 1,3
            auto     | 5              | 2          | PPPPPPPPPP | 5
            manual   | 3              | 2          | PPPPPP     | -
            """)
    void firesOnceAnOutageReachesTheThresholdAndNeverWhenManual(String mode, int failoverAfter, int downAfter,
            String checks, String firesAt) {
        FailoverTrigger trigger = new FailoverTrigger(mode.equals("auto"), failoverAfter, downAfter);
        List<String> fired = new ArrayList<>();
        for (int i = 0; i < checks.length(); i++) {
            char c = checks.charAt(i);
            if (c == 'p') {
                trigger.answered("primary");
            } else if (trigger.missed(c == 'P' ? "primary" : "ro1", c == 'P')) {
                fired.add(Integer.toString(i + 1));
            }
        }
        assertThat(fired.isEmpty() ? null : String.join(",", fired)).isEqualTo(firesAt);
    }
}
