package dev.sluice.server.frontend;

/**
 * A transaction whose connection to the primary was lost between two of its statements (BEHAVIOUR
 * §4, §10): the primary rolled it back, or died with it, so nothing of it committed. Going on with a
 * new connection would commit the rest as if it were whole. An endpoint with
 * {@code transaction-replay} runs the transaction again on a new connection first
 * ({@link TransactionReplay}) and goes on if every answer matches; otherwise, and on every other
 * endpoint, the session ends, as going direct would: at the client's next command, with an error
 * saying so and naming the failover that moves writes when the primary is gone — a silently
 * closed connection tells the client nothing. Confined to the session's event loop.
 */
final class LostTransaction {
    /** What the error says of replay on an endpoint that does not replay transactions. */
    static final String NOT_REPLAYED = "it is not replayed";

    private String node;

    /** The transaction open on {@code nodeName}, the primary, was lost with its connection. */
    void lostOn(String nodeName) {
        node = nodeName;
    }

    boolean pending() {
        return node != null;
    }

    /** The primary the transaction was lost on; only while {@link #pending()}. */
    String node() {
        return node;
    }

    /** The transaction was replayed on a new connection: the session goes on. */
    void replayed() {
        node = null;
    }

    /**
     * What the client is told when its transaction ended with the primary's connection;
     * {@code replay} says what became of replaying it, e.g. {@link #NOT_REPLAYED}.
     */
    static String message(String nodeName, String replay) {
        return "the transaction open on the primary '" + nodeName + "' was lost with the connection to it (the "
                + "primary failed, or the connection was ended) and did not commit; " + replay + ". If the "
                + "primary is gone, Sluice's failover moves writes to a replica. This connection ends: reconnect and "
                + "run the whole transaction again";
    }

    String message() {
        return message(node, NOT_REPLAYED);
    }
}
