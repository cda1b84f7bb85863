package dev.sluice.server.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.topology.NodeState;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class StateInterpreterTest {
    private static NodeObservation replicaReporting(long secondsBehind) {
        return new NodeObservation(true, GtidPosition.parse("0-2-40"), true, true, true,
                OptionalLong.of(secondsBehind), "", "10.11.6-MariaDB");
    }

    @Test
    void secondsBehindMasterCountsWhenTheGtidLagIsOnlyALowerBound() {
        NodeState s = StateInterpreter.interpret(replicaReporting(58), true, 3, false);
        assertThat(s.lag().seconds()).isEqualTo(58);
        assertThat(StateInterpreter.interpret(replicaReporting(1), true, 3, false).lag().seconds()).isEqualTo(3);
    }

    @Test
    void aMeasuredGtidLagIsTheLagWhateverSecondsBehindMasterSays() {
        // Just after START SLAVE, MariaDB reports the age of the source's binary-log header.
        NodeState s = StateInterpreter.interpret(replicaReporting(58), true, 0, true);
        assertThat(s.lag().isKnown()).isTrue();
        assertThat(s.lag().seconds()).isZero();
        // On a busy primary the replica is a write or two behind the newest position.
        assertThat(StateInterpreter.interpret(replicaReporting(58), true, 1, true).lag().seconds()).isEqualTo(1);
    }

    @Test
    void stoppedReplicationIsBrokenEvenWhenCaughtUp() {
        NodeObservation stopped = new NodeObservation(true, GtidPosition.parse("0-2-40"), true, false, false,
                OptionalLong.empty(), "", "10.11.6-MariaDB");
        assertThat(StateInterpreter.interpret(stopped, true, 0, true).lag().isKnown()).isFalse();
    }

    @Test
    void aPrimaryThatDoesNotReplicateHasNoLag() {
        NodeObservation primary = new NodeObservation(false, Optional.empty(), false, false, false,
                OptionalLong.empty(), "", "10.11.6-MariaDB");
        assertThat(StateInterpreter.interpret(primary, false, 0, false).lag().seconds()).isZero();
    }
}
