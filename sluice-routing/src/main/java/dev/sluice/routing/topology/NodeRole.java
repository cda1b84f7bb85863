package dev.sluice.routing.topology;

/** The role a node is configured with. Sluice does not fail over, so the role never changes by itself. */
public enum NodeRole {
    /** Takes every write; the only node whose GTID position is authoritative. */
    PRIMARY,
    /** Replicates from the primary; takes reads when healthy and fresh enough. */
    REPLICA
}
