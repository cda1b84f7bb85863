package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which replica a failover promotes, as tables. In the first, each replica is what the monitor sees:
 * {@code up} (its replication broken by the dead primary, which does not count against it),
 * {@code down} or {@code draining}. In the second, each is what it says it received from the dead
 * primary (a MariaDB GTID list, {@code ;} between domains) or {@code -} when it could not be asked.
 */
class FailoverChoiceTest {

    @ParameterizedTest(name = "[{index}] primary {0}; ro1 {1}, ro2 {2}, ro3 {3}; --to {4} -> {5}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # primary | ro1      | ro2      | ro3      | to      | outcome
            down      | up       | up       | up       | -       | ro1,ro2,ro3
            down      | down     | up       | draining | -       | ro2
            down      | up       | up       | up       | ro3     | ro1,ro2,ro3
            up        | up       | up       | up       | -       | refused: the primary 'primary' is reachable: a failover is for a primary that is gone; use switchover (./sluice switchover, POST /v1/switchover) to move a live one
            down      | down     | draining | down     | -       | refused: no replica can take over: ro1: it is unreachable; ro2: it is being drained; ro3: it is unreachable
            down      | up       | up       | up       | ro9     | refused: no node 'ro9'; nodes: primary, ro1, ro2, ro3
            down      | up       | up       | up       | primary | refused: 'primary' is the primary that failed
            down      | up       | down     | up       | ro2     | refused: cannot fail over to 'ro2': it is unreachable
            down      | up       | draining | up       | ro2     | refused: cannot fail over to 'ro2': it is being drained
            """)
    void asksOnlyReachableReplicasAndOnlyWhenThePrimaryIsGone(String primary, String ro1, String ro2, String ro3,
            String to, String outcome) {
        Topology t = Topology.empty().withNode("primary", "h:1", NodeRole.PRIMARY)
                .withState("primary", NodeState.primary(at("0-1-100")).withReachable(primary.equals("up")));
        String[] names = {"ro1", "ro2", "ro3"};
        String[] states = {ro1, ro2, ro3};
        for (int i = 0; i < names.length; i++) {
            t = t.withNode(names[i], "h:" + (i + 2), NodeRole.REPLICA)
                    .withState(names[i], NodeState.replica(ReplicationLag.BROKEN, at("0-1-100"))
                            .withReachable(!states[i].equals("down")))
                    .withDraining(names[i], states[i].equals("draining"));
        }
        FailoverChoice.Eligibility e = FailoverChoice.eligible(t, Optional.ofNullable(to));
        String got = e instanceof FailoverChoice.Eligible ok
                ? String.join(",", ok.candidates().stream().map(n -> n.name()).toList())
                : "refused: " + ((FailoverChoice.NotEligible) e).reason();
        assertThat(got).isEqualTo(outcome);
    }

    @ParameterizedTest(name = "[{index}] ro1 {0}, ro2 {1}, ro3 {2}; --to {3} -> {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # ro1          | ro2          | ro3     | to  | outcome
            0-1-100        | 0-1-100      | 0-1-100 | -   | ro1
            0-1-98         | 0-1-100      | 0-1-99  | -   | ro2
            0-1-98         | 0-1-99       | 0-1-100 | -   | ro3
            0-1-100        | -            | 0-1-101 | -   | ro3
            0-1-100;1-1-5  | 0-1-101      | 0-1-99  | -   | ro1
            0-1-101        | 0-1-101      | 0-1-99  | ro2 | ro2
            0-1-101        | 0-1-100      | 0-1-99  | ro2 | refused: cannot fail over to 'ro2': 'ro1' received 1 transaction(s) it lacks (0-1-101 against 0-1-100), which would be lost; fail over to 'ro1' or without --to
            0-1-101        | -            | 0-1-99  | ro2 | refused: cannot fail over to 'ro2': it could not be asked what it received
            -              | -            | -       | -   | refused: no replica could be asked what it received
            """)
    void promotesTheReplicaThatReceivedTheMostAndANamedOneOnlyIfNothingIsLost(String ro1, String ro2, String ro3,
            String to, String outcome) {
        List<FailoverChoice.Candidate> candidates = new ArrayList<>();
        String[] names = {"ro1", "ro2", "ro3"};
        String[] received = {ro1, ro2, ro3};
        for (int i = 0; i < names.length; i++) {
            if (received[i] != null) {
                candidates.add(new FailoverChoice.Candidate(names[i], at(received[i].replace(';', ','))));
            }
        }
        FailoverChoice.Choice c = FailoverChoice.choose(candidates, Optional.ofNullable(to));
        String got = c instanceof FailoverChoice.Chosen chosen ? chosen.target().name()
                : "refused: " + ((FailoverChoice.Refused) c).reason();
        assertThat(got).isEqualTo(outcome);
    }

    private static GtidPosition at(String list) {
        return GtidPosition.parse(list).orElseThrow();
    }
}
