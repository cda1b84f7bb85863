package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.admin.AdminException;
import dev.sluice.server.admin.InstanceDescription;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where a switchover or failover sent to instance 'b' runs, and what a refusal says. */
class LeaderOnlyTest {
    private static final List<InstanceDescription> INSTANCES = List.of(
            new InstanceDescription("a", List.of("rw=127.0.0.1:6033"), "127.0.0.1:8033"),
            new InstanceDescription("b", List.of("rw=127.0.0.1:6034"), "127.0.0.1:8034"));

    @ParameterizedTest(name = "[{index}] leading {0}, leader {1}, etcd reachable {2}: {3}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # leading | leader | reachable | status | says
            true      | b      | true      | -      | -
            true      | -      | false     | -      | -
            false     | a      | true      | 409    | send it to 'a' (admin API http://127.0.0.1:8033/v1/switchover)
            false     | c      | true      | 409    | send it to 'c' (not registered yet)
            false     | a      | false     | 503    | etcd is unreachable
            false     | -      | true      | 503    | no instance holds the leadership
            false     | b      | true      | 503    | no instance holds the leadership
            """)
    void runsOnlyOnTheLeaderAndOtherwiseNamesIt(boolean leading, String leader, boolean reachable, Integer status,
            String says) {
        Optional<AdminException> refusal = LeaderOnly.refusal("switchover", "b", leading, Optional.ofNullable(leader),
                INSTANCES, reachable);
        assertThat(refusal.map(AdminException::status).orElse(null)).isEqualTo(status);
        if (says != null) {
            assertThat(refusal.get().getMessage()).contains(says).contains("nothing was done");
        }
    }
}
