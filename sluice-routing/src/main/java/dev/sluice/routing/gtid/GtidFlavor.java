package dev.sluice.routing.gtid;

/**
 * The two GTID dialects Sluice understands. They cannot be compared with each other: a MariaDB
 * position says nothing about a MySQL source UUID, so mixed comparisons answer "not contained".
 */
public enum GtidFlavor {
    /** MariaDB {@code domain-server-sequence} lists, e.g. {@code 0-1-42,1-2-7}. */
    MARIADB,
    /** MySQL {@code uuid:interval[:interval]} sets, e.g. {@code 3e11fa47-...:1-5:7}. */
    MYSQL
}
