package dev.sluice.bench.consistency;

/**
 * The answer to a checked read: the row's value and {@code @@server_id} of the server that ran
 * the read, which tells a replica's answer from the primary's without asking Sluice.
 */
record ReadResult(long value, long serverId) {
}
