package dev.sluice.server.pool;

/**
 * Which backend connections can serve which sessions: logged in as the same account, with the
 * same protocol options (packets pass through unchanged only if both sides agree on them) and
 * the same connection character set. Which database and SET state are not part of it: they are
 * restored on whichever connection a session gets. Whether there is a database is: neither
 * COM_RESET_CONNECTION nor any statement takes a connection back to none, so a session without
 * one ({@code SELECT DATABASE()} answering NULL) is served only by connections that never
 * selected one.
 *
 * @param onSchema whether the connection has a database selected
 */
public record PoolKey(String user, long capabilities, int collation, boolean onSchema) {
}
