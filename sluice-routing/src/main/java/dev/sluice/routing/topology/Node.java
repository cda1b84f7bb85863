package dev.sluice.routing.topology;

import java.util.Objects;
import java.util.Optional;

/**
 * One database server as the proxy sees it: configuration plus the monitor's latest state.
 *
 * <p>{@code id} is a small integer assigned by {@link Topology} and never reused while the process
 * runs, so the server can index arrays (backends, counters) by it and a stale id can never point
 * at a different server.
 *
 * @param id       stable small integer, never reused
 * @param name     configured name, unique
 * @param address  {@code host:port}
 * @param role     configured role
 * @param zone     availability zone, when configured
 * @param capacity relative size; {@code weights: auto} gives a replica {@code 100 × capacity}
 * @param state    the monitor's latest observation
 * @param draining an operator asked sessions to leave this node (BEHAVIOUR §8)
 */
public record Node(int id, String name, String address, NodeRole role, Optional<String> zone,
                   int capacity, NodeState state, boolean draining) {

    /** Capacity when the configuration gives none (BEHAVIOUR §2). */
    public static final int DEFAULT_CAPACITY = 1;

    public Node {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(state, "state");
        if (id < 0) {
            throw new IllegalArgumentException("node id must be >= 0: " + id);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity of node '" + name + "' must be >= 1: " + capacity);
        }
    }

    public boolean isPrimary() {
        return role == NodeRole.PRIMARY;
    }

    public boolean isReplica() {
        return role == NodeRole.REPLICA;
    }

    public Node withState(NodeState value) {
        return new Node(id, name, address, role, zone, capacity, value, draining);
    }

    public Node withDraining(boolean value) {
        return new Node(id, name, address, role, zone, capacity, state, value);
    }

    public Node withAddress(String value) {
        return new Node(id, name, value, role, zone, capacity, state, draining);
    }

    public Node withZone(Optional<String> value) {
        return new Node(id, name, address, role, value, capacity, state, draining);
    }

    public Node withCapacity(int value) {
        return new Node(id, name, address, role, zone, value, state, draining);
    }
}
