package dev.sluice.server.config;

/**
 * Whether an endpoint replays a transaction lost with its primary connection on a new one
 * (BEHAVIOUR §10), and how much of it a session may hold for that.
 *
 * @param enabled {@code transaction-replay}; off by default, since a replay runs the transaction's
 *     statements a second time and some applications would rather see the error
 * @param maxSize {@code transaction-replay-max-size}: bytes recorded per transaction (statement text;
 *     for a prepared statement's execution its prepared text, parameters and long data); a
 *     transaction that grows past it is not replayed
 */
public record TransactionReplaySettings(boolean enabled, long maxSize) {
    public static final long DEFAULT_MAX_SIZE = 1L << 20;
    /** The most one session may hold: a transaction's record is kept in the session's memory. */
    public static final long MAX_MAX_SIZE = 1L << 30;
    public static final TransactionReplaySettings OFF = new TransactionReplaySettings(false, DEFAULT_MAX_SIZE);
}
