package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.runtime.SessionStanding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Whether the primary may move, as a table. Sessions are written {@code id:what}, {@code what}
 * being {@code free}, {@code tx} (a transaction open), {@code running} (a statement on the
 * primary) or {@code lock} (LOCK TABLES held).
 */
class DrainVerdictTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @ParameterizedTest(name = "[{index}] {0} after {1} ms -> {2}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # sessions                          | elapsed ms | verdict
            -                                   | 0          | proceed
            1:free 2:free                       | 0          | proceed
            1:free 2:tx                         | 0          | wait 1
            1:running 2:tx 3:lock               | 9999       | wait 3
            1:free 2:free                       | 20000      | proceed
            1:free 2:tx                         | 10000      | call off: 1 session(s) still used the primary after 10000 ms (switchover-timeout): session 2 has a transaction open. End them (or KILL the sessions) and try again
            7:lock 8:running                    | 10001      | call off: 2 session(s) still used the primary after 10000 ms (switchover-timeout): session 7 holds LOCK TABLES, which cannot move to another node; session 8 has a statement running. End them (or KILL the sessions) and try again
            1:tx 2:tx 3:tx 4:tx 5:tx 6:tx 7:tx   | 10000      | call off: 7 session(s) still used the primary after 10000 ms (switchover-timeout): session 1 has a transaction open; session 2 has a transaction open; session 3 has a transaction open; session 4 has a transaction open; session 5 has a transaction open and 2 more. End them (or KILL the sessions) and try again
            """)
    void waitsForTheSessionsUntilTheTimeoutThenCallsOff(String sessions, long elapsedMillis, String verdict) {
        List<SessionStanding> standings = new ArrayList<>();
        if (sessions != null) {
            for (String s : Arrays.asList(sessions.trim().split("\\s+"))) {
                String[] p = s.split(":");
                long id = Long.parseLong(p[0]);
                standings.add(switch (p[1]) {
                    case "free" -> new SessionStanding(id, false, false, List.of());
                    case "tx" -> new SessionStanding(id, true, false, List.of());
                    case "running" -> new SessionStanding(id, false, true, List.of());
                    case "lock" -> new SessionStanding(id, false, false, List.of("LOCK TABLES"));
                    default -> throw new IllegalArgumentException(s);
                });
            }
        }
        DrainVerdict.Verdict v = DrainVerdict.judge(standings, Duration.ofMillis(elapsedMillis), TIMEOUT);
        String got = v instanceof DrainVerdict.Wait w ? "wait " + w.sessions()
                : v instanceof DrainVerdict.CallOff c ? "call off: " + c.reason() : "proceed";
        assertThat(got).isEqualTo(verdict);
    }
}
