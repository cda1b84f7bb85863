package dev.sluice.server.frontend;

import java.util.function.Consumer;

/**
 * A read kept until its answer starts, so that it can be sent again if its replica fails first.
 *
 * @param command the read, holding its own retained copy of the client's packet; for a
 *     COM_STMT_PREPARE only its packet and expected answer count
 * @param attempts how many times it has been sent
 * @param nodeId where it was sent last
 * @param again how it is sent again: a statement is routed again, a COM_STMT_PREPARE is prepared
 *     on another node (see PreparedCommands)
 */
record ReadRetry(RoutedCommand command, int attempts, int nodeId, Consumer<ReadRetry> again) {

    /** A read is tried on at most this many nodes before the failure reaches the client. */
    static final int MAX_ATTEMPTS = 3;

    /** Sending it again is its last try: should that fail too, the failure reaches the client. */
    boolean lastTry() {
        return attempts >= MAX_ATTEMPTS;
    }

    /** Sends the read again, now that its node is known to have failed it. */
    void retry() {
        again.accept(this);
    }
}
