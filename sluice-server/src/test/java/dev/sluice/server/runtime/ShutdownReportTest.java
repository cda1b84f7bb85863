package dev.sluice.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShutdownReportTest {

    @Test
    void countsEachKindOfEndAndSaysSoInOneLine() {
        ShutdownReport r = ShutdownReport.of(List.of(SessionEnd.AT_BOUNDARY, SessionEnd.CUT, SessionEnd.AT_BOUNDARY,
                SessionEnd.BY_ITSELF), Duration.ofMillis(1520), Duration.ofSeconds(30));
        assertThat(r.sessions()).isEqualTo(4);
        assertThat(r.clean()).isFalse();
        assertThat(r.describe()).isEqualTo("4 session(s) at stop: 2 closed at a transaction boundary, 1 ended by "
                + "themselves, 1 cut after shutdown-timeout 30000 ms; took 1520 ms");
    }

    @Test
    void noSessionsIsACleanStop() {
        ShutdownReport r = ShutdownReport.of(List.of(), Duration.ZERO, Duration.ofSeconds(5));
        assertThat(r.clean()).isTrue();
        assertThat(r.sessions()).isZero();
    }
}
