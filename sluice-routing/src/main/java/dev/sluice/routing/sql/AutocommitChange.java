package dev.sluice.routing.sql;

/** What a {@code SET autocommit = …} does. */
public enum AutocommitChange {
    NONE,
    ON,
    OFF,
    /** The value is an expression: only the server's next status flags will tell. */
    UNKNOWN
}
