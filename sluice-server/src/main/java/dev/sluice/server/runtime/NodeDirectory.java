package dev.sluice.server.runtime;

import dev.sluice.routing.topology.Node;
import java.util.Optional;

/**
 * The cluster's nodes as a client session reaches them: by id, the current primary, and a way to
 * report one it could not reach. The topology it answers from follows the monitor and admin
 * changes, so every call answers for now.
 */
public interface NodeDirectory {
    /** The node Sluice currently treats as primary (it follows switchovers). */
    Optional<NodeRef> primary();

    Optional<NodeRef> node(int id);

    /** The addressable form of a node of the topology. */
    NodeRef ref(Node node);

    /**
     * A session saw a node fail: it leaves the readable sets now and the monitor checks it at once
     * (BEHAVIOUR §4).
     */
    void suspect(int nodeId, String reason);
}
