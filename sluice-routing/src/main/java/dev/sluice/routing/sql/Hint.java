package dev.sluice.routing.sql;

/** BEHAVIOUR §3: a routing hint in a comment at the very start of a statement. Hints win over everything else. */
public enum Hint {
    NONE,
    /** <code>/&#42;FORCE_MASTER&#42;/</code>: run on the primary, whatever its read weight. */
    FORCE_MASTER,
    /** <code>/&#42;FORCE_SLAVE&#42;/</code>: run a read on a replica, without waiting for consistency. */
    FORCE_SLAVE
}
