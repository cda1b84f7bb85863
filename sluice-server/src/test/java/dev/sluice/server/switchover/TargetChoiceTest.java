package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which replica a switchover promotes, as a table. Each replica is written {@code lag/sequence}
 * (its lag in seconds and the sequence number of domain 0 it applied; the primary is at 100),
 * {@code broken}, {@code down}, {@code draining} or {@code unknown} (no lag seen yet).
 */
class TargetChoiceTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    @ParameterizedTest(name = "[{index}] primary {0}; ro1 {1}, ro2 {2}, ro3 {3}; --to {4} -> {5}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # primary | ro1     | ro2     | ro3     | to      | outcome
            up        | 0/100   | 0/100   | 0/100   | -       | ro1
            up        | 0/98    | 0/100   | 0/99    | -       | ro2
            up        | 2/100   | 0/100   | 1/100   | -       | ro2
            up        | broken  | 0/97    | down    | -       | ro2
            up        | draining| 5/90    | 0/95    | -       | ro3
            up        | 11/100  | 0/50    | 0/60    | -       | ro3
            up        | 0/100   | 0/100   | 0/100   | ro3     | ro3
            up        | broken  | 0/100   | 0/100   | -       | ro2
            up        | broken  | down    | 20/100  | -       | refused: no replica can take over: ro1: its replication is not running (I/O thread stopped, SQL thread stopped); ro2: it is unreachable; ro3: it lags 20 s behind the primary, more than the 10 s the switchover may wait for it
            up        | 0/100   | 0/100   | 0/100   | ro9     | refused: no node 'ro9'; nodes: primary, ro1, ro2, ro3
            up        | 0/100   | 0/100   | 0/100   | primary | refused: 'primary' is the primary already
            up        | 0/100   | 11/100  | 0/100   | ro2     | refused: cannot switch over to 'ro2': it lags 11 s behind the primary, more than the 10 s the switchover may wait for it
            up        | 0/100   | 10/100  | 0/100   | ro2     | ro2
            up        | unknown | 0/100   | 0/100   | ro1     | refused: cannot switch over to 'ro1': its replication lag is not known yet
            up        | 0/100   | draining| 0/100   | ro2     | refused: cannot switch over to 'ro2': it is being drained
            up        | 0/100   | down    | 0/100   | ro2     | refused: cannot switch over to 'ro2': it is unreachable
            down      | 0/100   | 0/100   | 0/100   | -       | refused: the primary 'primary' is unreachable: a switchover needs it to hand over its last transactions
            """)
    void choosesTheMostAdvancedHealthyReplicaOrSaysWhyNot(String primary, String ro1, String ro2, String ro3,
            String to, String outcome) {
        Topology t = Topology.empty().withNode("primary", "h:1", NodeRole.PRIMARY);
        t = t.withState("primary", primary.equals("up") ? NodeState.primary(at(100))
                : NodeState.primary(at(100)).withReachable(false));
        String[] names = {"ro1", "ro2", "ro3"};
        String[] states = {ro1, ro2, ro3};
        for (int i = 0; i < names.length; i++) {
            t = t.withNode(names[i], "h:" + (i + 2), NodeRole.REPLICA);
            t = replica(t, names[i], states[i]);
        }
        TargetChoice.Choice c = TargetChoice.choose(t, Optional.ofNullable(to), BOUND);
        String got = c instanceof TargetChoice.Chosen chosen ? chosen.target().name()
                : "refused: " + ((TargetChoice.Refused) c).reason();
        assertThat(got).isEqualTo(outcome);
    }

    private static Topology replica(Topology t, String name, String state) {
        return switch (state) {
            case "broken" -> t.withState(name, NodeState.replica(ReplicationLag.BROKEN, at(100)));
            case "down" -> t.withState(name, NodeState.replica(ReplicationLag.NONE, at(100)).withReachable(false));
            case "unknown" -> t.withState(name, NodeState.replica(ReplicationLag.UNKNOWN, at(100)));
            case "draining" -> t.withState(name, NodeState.replica(ReplicationLag.NONE, at(100)))
                    .withDraining(name, true);
            default -> {
                String[] parts = state.split("/");
                yield t.withState(name, NodeState.replica(ReplicationLag.ofSeconds(Long.parseLong(parts[0])),
                        at(Long.parseLong(parts[1]))));
            }
        };
    }

    private static GtidPosition at(long sequence) {
        return GtidPosition.parse("0-1-" + sequence).orElseThrow();
    }
}
