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

    /**
     * In cluster mode, with {@code L} a missed check of the primary while this instance leads and
     * {@code F} one while it follows: the outcome lists each non-NONE decision as position:decision.
     * Failover-after 3, down-after 2. Becoming leader after the threshold (FFFLL) starts nothing: the
     * former leader may be failing over still.
     */
    @ParameterizedTest(name = "[{index}] {0} -> {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # checks   | decisions
            LLLLL      | 3:FAIL_OVER
            FFFFF      | 3:LEFT_TO_LEADER
            FFFLL      | 3:LEFT_TO_LEADER
            FFLLL      | 3:FAIL_OVER
            LLFLL      | 3:LEFT_TO_LEADER
            LLLFL      | 3:FAIL_OVER
            FFFpLLL    | 3:LEFT_TO_LEADER,7:FAIL_OVER
            LLLpLLL    | 3:FAIL_OVER,7:FAIL_OVER
            LLLRLLL    | 3:FAIL_OVER,7:FAIL_OVER
            FFRLL      | -
            """)
    void onlyTheInstanceLeadingAtTheThresholdFailsOverNeverOneThatLeadsLater(String checks, String decisions) {
        FailoverTrigger trigger = new FailoverTrigger(true, 3, 2);
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < checks.length(); i++) {
            char c = checks.charAt(i);
            if (c == 'p') {
                trigger.answered("primary");
                continue;
            }
            FailoverTrigger.Decision d = c == 'R' ? trigger.missed("primary", false, true)
                    : trigger.missed("primary", true, c == 'L');
            if (d != FailoverTrigger.Decision.NONE) {
                seen.add((i + 1) + ":" + d);
            }
        }
        assertThat(seen.isEmpty() ? null : String.join(",", seen)).isEqualTo(decisions);
    }

    @ParameterizedTest(name = "[{index}] manual, leading {0}")
    @CsvSource({"true", "false"})
    void manualNeverDecidesAnything(boolean leading) {
        FailoverTrigger trigger = new FailoverTrigger(false, 3, 2);
        for (int i = 0; i < 6; i++) {
            assertThat(trigger.missed("primary", true, leading)).isEqualTo(FailoverTrigger.Decision.NONE);
        }
    }
}
