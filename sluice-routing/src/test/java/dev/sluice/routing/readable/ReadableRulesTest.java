package dev.sluice.routing.readable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** BEHAVIOUR §4: lag threshold, broken replication and min-reserved-nodes, the whole table. */
class ReadableRulesTest {

    private static final String BROKEN = "-1";

    static Topology cluster(String... lags) {
        Topology t = Topology.empty().withNode("primary", "h:1", NodeRole.PRIMARY)
                .withState("primary", NodeState.primary(MariaDbGtidList.EMPTY));
        for (int i = 0; i < lags.length; i++) {
            String name = "ro" + (i + 1);
            t = t.withNode(name, "h:" + (i + 2), NodeRole.REPLICA);
            long lag = Long.parseLong(lags[i]);
            t = t.withState(name, NodeState.replica(lag < 0 ? ReplicationLag.BROKEN : ReplicationLag.ofSeconds(lag)));
        }
        return t;
    }

    static EndpointPolicy policy(int reserved, String weights) {
        EndpointPolicy policy = EndpointPolicy.defaults("rw").withMinReservedNodes(reserved)
                .withMaxReplicationLag(Duration.ofSeconds(30));
        if (!weights.equals("auto")) {
            String[] w = weights.split("/");
            policy = policy.withWeights(new ReadWeights.Custom(Map.of("primary", 0, "ro1", Integer.parseInt(w[0]),
                    "ro2", Integer.parseInt(w[1]), "ro3", Integer.parseInt(w[2]))));
        }
        return policy;
    }

    static String names(Topology t, ReadableSet set) {
        return t.nodes().stream().filter(n -> set.isReadable(n.id())).map(Node::name)
                .collect(Collectors.joining(" "));
    }

    /** The BEHAVIOUR §4 table, row by row ("any" lag rows are expanded over healthy, lagging and broken). */
    @ParameterizedTest(name = "N={0}, weights {1}, lags {2}/{3}/{4} -> [{5}]")
    @CsvSource(delimiter = '|', value = {
        "1|auto|0|40|40|ro1",
        "1|auto|40|50|60|ro1",
        "1|auto|-1|-1|-1|ro1",
        "1|auto|-1|50|60|ro2",
        "2|auto|20|60|40|ro1 ro2",
        "2|auto|20|-1|60|ro1 ro3",
        "2|auto|20|-1|-1|ro1 ro2",
    })
    void specTable(int reserved, String weights, String lag1, String lag2, String lag3, String expected) {
        Topology t = cluster(lag1, lag2, lag3);
        ReadableSet set = ReadableRules.compute(t, policy(reserved, weights), ReadableSet.NONE);
        assertThat(names(t, set)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "N=2, weights {0}, any lags -> [{1}]")
    @CsvSource(delimiter = '|', value = {"0/20/0|ro2", "0/0/0|", "0/20/20|ro2 ro3"})
    void specTableWeightRowsForAnyLags(String weights, String expected) {
        String[] lagChoices = {"0", "40", BROKEN};
        for (String l1 : lagChoices) {
            for (String l2 : lagChoices) {
                for (String l3 : lagChoices) {
                    Topology t = cluster(l1, l2, l3);
                    ReadableSet set = ReadableRules.compute(t, policy(2, weights), ReadableSet.NONE);
                    assertThat(names(t, set)).as("lags %s/%s/%s", l1, l2, l3)
                            .isEqualTo(expected == null ? "" : expected);
                }
            }
        }
    }

    @Test
    void withoutReservedNodesOnlyHealthyReplicasRead() {
        Topology t = cluster("0", "30", "31");
        assertThat(names(t, ReadableRules.compute(t, policy(0, "auto"), ReadableSet.NONE))).isEqualTo("ro1 ro2");
        Topology all = cluster("40", "-1", "50");
        ReadableSet none = ReadableRules.compute(all, policy(0, "auto"), ReadableSet.NONE);
        assertThat(none.isEmpty()).isTrue();
    }

    @Test
    void nodesAlreadyServingStay() {
        // ro3 was the reserved node; everything lags now: it stays, though config order prefers ro1
        Topology t = cluster("40", "50", "60");
        ReadableSet before = ReadableRules.compute(cluster("40", "50", "0"), policy(1, "auto"), ReadableSet.NONE);
        assertThat(names(cluster("40", "50", "0"), before)).isEqualTo("ro3");
        ReadableSet after = ReadableRules.compute(t, policy(1, "auto"), before);
        assertThat(names(t, after)).isEqualTo("ro3");
        // a serving node that broke still beats a lagging newcomer
        Topology broken = cluster("40", "50", "-1");
        assertThat(names(broken, ReadableRules.compute(broken, policy(1, "auto"), before))).isEqualTo("ro3");
        // without the history, the BEHAVIOUR §4 order applies
        assertThat(names(t, ReadableRules.compute(t, policy(1, "auto"), ReadableSet.NONE))).isEqualTo("ro1");
    }

    @Test
    void higherWeightFirstWithinTheSameStatus() {
        Topology t = cluster("40", "50", "60");
        assertThat(names(t, ReadableRules.compute(t, policy(1, "10/20/30"), ReadableSet.NONE))).isEqualTo("ro3");
        assertThat(names(t, ReadableRules.compute(t, policy(2, "10/20/30"), ReadableSet.NONE))).isEqualTo("ro2 ro3");
    }

    @Test
    void unreachableDrainingAndUnknownReplicas() {
        Topology t = cluster("0", "0", "0")
                .withState("ro1", NodeState.UNMONITORED)
                .withDraining("ro2", true);
        ReadableSet set = ReadableRules.compute(t, policy(3, "auto"), ReadableSet.NONE);
        assertThat(names(t, set)).as("only ro3 can serve").isEqualTo("ro3");
        assertThat(set.passesHealthRules(t.node("ro2").orElseThrow().id())).isFalse();
        Topology unknownLag = cluster("40", "0", "0").withState("ro2",
                NodeState.replica(ReplicationLag.UNKNOWN)).withState("ro3", NodeState.replica(ReplicationLag.BROKEN));
        assertThat(names(unknownLag, ReadableRules.compute(unknownLag, policy(2, "auto"), ReadableSet.NONE)))
                .as("lagging before unknown/broken").isEqualTo("ro1 ro2");
    }

    @Test
    void healthIgnoresWeightsButReadabilityDoesNot() {
        Topology t = cluster("0", "0", "0");
        ReadableSet set = ReadableRules.compute(t, policy(0, "0/100/100"), ReadableSet.NONE);
        int ro1 = t.node("ro1").orElseThrow().id();
        assertThat(set.isReadable(ro1)).isFalse();
        assertThat(set.passesHealthRules(ro1)).isTrue();
        assertThat(Arrays.stream(set.reservedIds()).boxed().toList()).isEqualTo(List.of());
    }

    @Test
    void withThePrimaryDownAReplicaThatLostOnlyItsSourceStillTakesReads() {
        Topology t = cluster("0", "0", "0");
        t = t.withState("primary", t.node("primary").orElseThrow().state().withReachable(false));
        // ro1 and ro2 lost their source (I/O thread down, applier running); ro3's applier stopped too.
        t = t.withState("ro1", t.node("ro1").orElseThrow().state().withReplicationThreads(false, true));
        t = t.withState("ro2", t.node("ro2").orElseThrow().state().withReplicationThreads(false, true)
                .withLag(ReplicationLag.ofSeconds(40)));
        t = t.withState("ro3", t.node("ro3").orElseThrow().state().withReplicationThreads(false, false)
                .withLag(ReplicationLag.BROKEN));
        assertThat(names(t, ReadableRules.compute(t, policy(0, "auto"), ReadableSet.NONE)))
                .as("ro2 lags beyond the threshold, ro3 applies nothing").isEqualTo("ro1");
    }

    @Test
    void withThePrimaryUpAReplicaWithoutItsIoThreadIsBroken() {
        Topology t = cluster("0", "0", "0");
        t = t.withState("ro1", t.node("ro1").orElseThrow().state().withReplicationThreads(false, true));
        assertThat(names(t, ReadableRules.compute(t, policy(0, "auto"), ReadableSet.NONE))).isEqualTo("ro2 ro3");
    }
}
