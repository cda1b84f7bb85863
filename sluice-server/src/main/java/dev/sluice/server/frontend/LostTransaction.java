package dev.sluice.server.frontend;

/**
 * A transaction whose connection to the primary was lost between two of its statements (BEHAVIOUR
 * §4, §10): the primary rolled it back, or died with it, so nothing of it committed. Going on with a
 * new connection would commit the rest as if it were whole, so the session ends, as going direct
 * would; it ends at the client's next command, with an error saying so and naming the failover
 * that moves writes when the primary is gone — a silently closed connection tells the client
 * nothing. The transaction is not replayed. Confined to the session's event loop.
 */
final class LostTransaction {
    private String node;

    /** The transaction open on {@code nodeName}, the primary, was lost with its connection. */
    void lostOn(String nodeName) {
        node = nodeName;
    }

    boolean pending() {
        return node != null;
    }

    /** What the client is told when its transaction ended with the primary's connection. */
    static String message(String nodeName) {
        return "the transaction open on the primary '" + nodeName + "' was lost with the connection to it (the "
                + "primary failed, or the connection was ended) and did not commit; it is not replayed. If the "
                + "primary is gone, Sluice's failover moves writes to a replica. This connection ends: reconnect and "
                + "run the whole transaction again";
    }

    String message() {
        return message(node);
    }
}
