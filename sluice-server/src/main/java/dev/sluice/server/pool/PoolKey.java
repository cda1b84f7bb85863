package dev.sluice.server.pool;

/**
 * Which backend connections can serve which sessions: logged in as the same account, with the
 * same protocol options (packets pass through unchanged only if both sides agree on them) and
 * the same connection character set. Database and SET state are not part of it: they are
 * restored on whichever connection a session gets.
 */
public record PoolKey(String user, long capabilities, int collation) {
}
