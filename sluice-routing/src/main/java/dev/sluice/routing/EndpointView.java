package dev.sluice.routing;

import dev.sluice.routing.balance.Balancer;
import dev.sluice.routing.balance.LeastActive;
import dev.sluice.routing.balance.SmoothWeightedRoundRobin;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.policy.BalancerKind;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.readable.ReadableRules;
import dev.sluice.routing.readable.ReadableSet;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import java.util.List;
import java.util.Optional;

/**
 * Everything the router needs about one endpoint, precomputed: the topology snapshot, the policy,
 * the readable set (BEHAVIOUR §4) and the endpoint's round-robin state.
 *
 * <p>The server builds one per endpoint and replaces it with {@link #next(Topology, EndpointPolicy)}
 * when the monitor publishes a topology or an operator changes the policy, never per statement.
 * {@code next} carries the readable set over (so nodes already serving stay) and the round-robin
 * state (so a change does not restart the rotation). Immutable, apart from the shared round-robin
 * state, which is thread-safe.
 *
 * <p>Nodes are addressed by their <em>position</em> in the endpoint's configuration order so that
 * candidate sets fit in a {@code long}; an endpoint has at most 64 nodes (policy validation says so).
 */
public final class EndpointView {

    /** Positions fit in one {@code long} mask. */
    static final int MAX_POSITIONS = Long.SIZE;

    private final Topology topology;
    private final EndpointPolicy policy;
    private final ReadableSet readable;
    private final SmoothWeightedRoundRobin roundRobin;
    private final List<Node> nodes;
    private final int[] nodeIds;
    private final int primaryPosition;
    private final long replicaMask;
    private final long usableReplicaMask;
    private final long readableMask;
    private final long preferredZoneMask;
    private final GtidPosition[] positions;
    private final long[] lagSeconds;

    private EndpointView(Topology topology, EndpointPolicy policy, ReadableSet readable,
                         SmoothWeightedRoundRobin roundRobin) {
        this.topology = topology;
        this.policy = policy;
        this.readable = readable;
        this.roundRobin = roundRobin;
        List<Node> resolved = policy.resolveNodes(topology);
        this.nodes = List.copyOf(resolved.size() > MAX_POSITIONS ? resolved.subList(0, MAX_POSITIONS) : resolved);
        this.nodeIds = new int[nodes.size()];
        this.positions = new GtidPosition[nodes.size()];
        this.lagSeconds = new long[nodes.size()];
        int primary = -1;
        long replicas = 0;
        long usable = 0;
        long readableBits = 0;
        long zoneBits = 0;
        for (int p = 0; p < nodes.size(); p++) {
            Node node = nodes.get(p);
            nodeIds[p] = node.id();
            positions[p] = node.state().position().orElse(null);
            lagSeconds[p] = node.state().lag().seconds();
            if (node.isPrimary()) {
                primary = p;
                continue;
            }
            replicas |= 1L << p;
            if (policy.preferredZone().isPresent() && node.zone().equals(policy.preferredZone())) {
                zoneBits |= 1L << p;
            }
            if (readable.isReadable(node.id())) {
                readableBits |= 1L << p;
            }
            if (readable.isReadable(node.id()) || readable.passesHealthRules(node.id())) {
                usable |= 1L << p;
            }
        }
        this.primaryPosition = primary;
        this.replicaMask = replicas;
        this.usableReplicaMask = usable;
        this.readableMask = readableBits;
        this.preferredZoneMask = zoneBits;
    }

    /** The first view of an endpoint. */
    public static EndpointView of(Topology topology, EndpointPolicy policy) {
        return new EndpointView(topology, policy, ReadableRules.compute(topology, policy, ReadableSet.NONE),
                new SmoothWeightedRoundRobin());
    }

    /** The view after a topology or policy change; keeps serving nodes and the rotation. */
    public EndpointView next(Topology newTopology, EndpointPolicy newPolicy) {
        return new EndpointView(newTopology, newPolicy, ReadableRules.compute(newTopology, newPolicy, readable),
                roundRobin);
    }

    public Topology topology() {
        return topology;
    }

    public EndpointPolicy policy() {
        return policy;
    }

    public ReadableSet readable() {
        return readable;
    }

    /** The endpoint's nodes present in the topology, in configuration order. */
    public List<Node> nodes() {
        return nodes;
    }

    /** The endpoint's shared smooth weighted round-robin state (also used at connect time). */
    public SmoothWeightedRoundRobin roundRobin() {
        return roundRobin;
    }

    /** The balancer the policy asks for. */
    public Balancer balancer() {
        return policy.balancer() == BalancerKind.WEIGHTED ? roundRobin : LeastActive.INSTANCE;
    }

    // ---- positional views for the router ---------------------------------------------------

    int[] nodeIds() {
        return nodeIds;
    }

    int primaryPosition() {
        return primaryPosition;
    }

    /** Replicas that may take reads of a session holding them: readable now, or healthy whatever their current weight. */
    long usableReplicaMask() {
        return usableReplicaMask;
    }

    /** Replicas readable for a new session (BEHAVIOUR §4 set). */
    long readableMask() {
        return readableMask;
    }

    long replicaMask() {
        return replicaMask;
    }

    /**
     * Nearest zone (BEHAVIOUR §2): of {@code replicas}, those in the endpoint's preferred zone when
     * there is one among them; else all of them.
     */
    long preferredZone(long replicas) {
        long near = replicas & preferredZoneMask;
        return near != 0 ? near : replicas;
    }

    /** Position index of a node id, or -1 when the node is not part of this endpoint. */
    int positionOf(int nodeId) {
        for (int p = 0; p < nodeIds.length; p++) {
            if (nodeIds[p] == nodeId) {
                return p;
            }
        }
        return -1;
    }

    /** Known GTID position of the node at {@code position}. */
    Optional<GtidPosition> gtidAt(int position) {
        return Optional.ofNullable(positions[position]);
    }

    /** Same as {@link #gtidAt}, without the Optional, for the per-read loop: null when unknown. */
    GtidPosition gtidOrNull(int position) {
        return positions[position];
    }

    /** Lag seconds of the node at {@code position} (negative sentinel when broken or unknown). */
    long lagAt(int position) {
        return lagSeconds[position];
    }

    boolean primaryReachable() {
        return primaryPosition >= 0 && nodes.get(primaryPosition).state().reachable();
    }
}
