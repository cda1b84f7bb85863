package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.admin.InstanceDescription;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InstanceHealthTest {
    private static final InstanceDescription B = new InstanceDescription("b", List.of("rw=127.0.0.1:6034"),
            "127.0.0.1:8034");
    private static final Duration FRESH = Duration.ofMillis(900);

    @Test
    void anInstanceThatRunsWhatThisOneRunsIsOk() {
        assertThat(InstanceHealth.verdict(B.reporting(9, "primary", 4, 30), FRESH, 9, Optional.of("primary")))
                .isEqualTo("ok");
    }

    @Test
    void anOlderRevisionIsBehind() {
        assertThat(InstanceHealth.verdict(B.reporting(7, "primary", 4, 30), FRESH, 9, Optional.of("primary")))
                .isEqualTo("behind: runs the configuration of etcd revision 7, not 9");
    }

    @Test
    void anotherPrimaryDisagrees() {
        assertThat(InstanceHealth.verdict(B.reporting(9, "ro1", 4, 30), FRESH, 9, Optional.of("primary")))
                .isEqualTo("disagrees: sends writes to 'ro1', this instance to 'primary'");
    }

    @Test
    void aCountThatStoppedMovingIsSilentByTheReadersClock() {
        InstanceHealth health = new InstanceHealth();
        long second = 1_000_000_000L;
        InstanceDescription report = B.reporting(9, "primary", 4, 30);
        assertThat(health.judge(List.of(report), 0, 9, Optional.of("primary")).get(0).health()).isEqualTo("ok");
        assertThat(health.judge(List.of(report), 2 * second, 9, Optional.of("primary")).get(0).health())
                .isEqualTo("ok");
        assertThat(health.judge(List.of(report), 3 * second, 9, Optional.of("primary")).get(0).health())
                .isEqualTo("silent: no report for 3 s; its lease has not ended yet");
        // It reports again: fine at once.
        assertThat(health.judge(List.of(B.reporting(9, "primary", 4, 31)), 4 * second, 9, Optional.of("primary"))
                .get(0).health()).isEqualTo("ok");
    }

    @Test
    void anInstanceThatReportsOnlyWhereItListensIsUnknown() {
        assertThat(InstanceHealth.verdict(B, FRESH, 9, Optional.of("primary"))).startsWith("unknown:");
    }
}
