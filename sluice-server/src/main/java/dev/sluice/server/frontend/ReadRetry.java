package dev.sluice.server.frontend;

import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;

/**
 * A read kept until its answer starts, so that it can be sent again if its replica fails first.
 *
 * @param command the read, holding its own retained copy of the client's packet; for a
 *     COM_STMT_PREPARE only its packet and expected answer count
 * @param attempts how many times it has been sent
 * @param nodeId where it was sent last
 * @param resend how to send it again when routing it again is not the way (a COM_STMT_PREPARE:
 *     it is prepared on another node, see PreparedCommands); null for statements
 */
record ReadRetry(RoutedCommand command, int attempts, int nodeId, Consumer<ByteBuf> resend) {

    /** A read is tried on at most this many nodes before the failure reaches the client. */
    static final int MAX_ATTEMPTS = 3;
}
