package dev.sluice.routing;

/** Statements Sluice answers without a backend. */
public enum LocalAnswer {
    /** {@code SELECT sluice_last_gtid()}: the session's last committed GTID, or NULL (BEHAVIOUR §5). */
    LAST_GTID
}
