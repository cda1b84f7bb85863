package dev.sluice.routing.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * An immutable snapshot of the cluster: nodes in configuration order, with their state.
 *
 * <p>The monitor and configuration changes publish a new snapshot (through the withers below);
 * readers take the current one per statement and never see it change under them. The snapshot
 * also carries the next free node id, so ids handed out by snapshots derived from one another are
 * never reused: the server may keep arrays indexed by id across snapshots.
 */
public final class Topology {

    private static final Topology EMPTY = new Topology(List.of(), 0);

    private final List<Node> nodes;
    private final int nextId;
    private final Node[] byId;
    private final Map<String, Node> byName;

    private Topology(List<Node> nodes, int nextId) {
        this.nodes = nodes;
        this.nextId = nextId;
        this.byId = new Node[nextId];
        Map<String, Node> names = new HashMap<>();
        for (Node node : nodes) {
            if (names.put(node.name(), node) != null) {
                throw new IllegalArgumentException("duplicate node name '" + node.name() + "'");
            }
            if (node.id() >= nextId || byId[node.id()] != null) {
                throw new IllegalArgumentException("bad or duplicate node id " + node.id());
            }
            byId[node.id()] = node;
        }
        this.byName = Collections.unmodifiableMap(names);
    }

    /** A cluster with no node; ids start at 0. */
    public static Topology empty() {
        return EMPTY;
    }

    /** Every node, in configuration order. */
    public List<Node> nodes() {
        return nodes;
    }

    /** One more than the highest id ever handed out: the size of an array indexed by node id. */
    public int idLimit() {
        return nextId;
    }

    public Optional<Node> node(int id) {
        return id >= 0 && id < byId.length ? Optional.ofNullable(byId[id]) : Optional.empty();
    }

    public Optional<Node> node(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Whether a node with this id is (still) part of the cluster. */
    public boolean contains(int id) {
        return id >= 0 && id < byId.length && byId[id] != null;
    }

    /** The configured primary, if the cluster has one. */
    public Optional<Node> primary() {
        for (Node node : nodes) {
            if (node.isPrimary()) {
                return Optional.of(node);
            }
        }
        return Optional.empty();
    }

    /** Adds a node with {@link Node#DEFAULT_CAPACITY} and no zone; it gets the next unused id. */
    public Topology withNode(String name, String address, NodeRole role) {
        return withNode(name, address, role, Optional.empty(), Node.DEFAULT_CAPACITY);
    }

    /** Adds a node; it gets the next unused id and starts {@link NodeState#UNMONITORED}. */
    public Topology withNode(String name, String address, NodeRole role, Optional<String> zone, int capacity) {
        if (byName.containsKey(name)) {
            throw new IllegalArgumentException("node '" + name + "' already exists");
        }
        if (role == NodeRole.PRIMARY && primary().isPresent()) {
            throw new IllegalArgumentException("cluster already has a primary: '" + primary().get().name() + "'");
        }
        List<Node> next = new ArrayList<>(nodes);
        next.add(new Node(nextId, name, address, role, zone, capacity, NodeState.UNMONITORED, false));
        return new Topology(List.copyOf(next), nextId + 1);
    }

    /** Removes a node; its id is not reused. Unknown names leave the snapshot unchanged. */
    public Topology withoutNode(String name) {
        if (!byName.containsKey(name)) {
            return this;
        }
        List<Node> next = new ArrayList<>(nodes);
        next.removeIf(node -> node.name().equals(name));
        return new Topology(List.copyOf(next), nextId);
    }

    /** Replaces one node by {@code change.apply(node)}; its id and name must stay the same. */
    public Topology withNodeChanged(String name, UnaryOperator<Node> change) {
        Node old = byName.get(name);
        if (old == null) {
            throw new IllegalArgumentException("unknown node '" + name + "'");
        }
        Node changed = change.apply(old);
        if (changed.id() != old.id() || !changed.name().equals(old.name())) {
            throw new IllegalArgumentException("a node's id and name cannot change");
        }
        List<Node> next = new ArrayList<>(nodes.size());
        for (Node node : nodes) {
            next.add(node == old ? changed : node);
        }
        return new Topology(List.copyOf(next), nextId);
    }

    /** The monitor's new observation of one node. */
    public Topology withState(String name, NodeState state) {
        return withNodeChanged(name, node -> node.withState(state));
    }

    /** Marks a node draining (or not): sessions leave it at their next transaction boundary. */
    public Topology withDraining(String name, boolean draining) {
        return withNodeChanged(name, node -> node.withDraining(draining));
    }

    @Override
    public String toString() {
        return "Topology" + nodes;
    }
}
