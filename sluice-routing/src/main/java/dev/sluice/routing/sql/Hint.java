package dev.sluice.routing.sql;

/** SPEC §3: a routing hint in a comment at the very start of a statement. Hints win over everything else. */
public enum Hint {
    NONE,
    /** {@code /*FORCE_MASTER*&#47;}: run on the primary, whatever its read weight. */
    FORCE_MASTER,
    /** {@code /*FORCE_SLAVE*&#47;}: run a read on a replica, without waiting for consistency. */
    FORCE_SLAVE
}
