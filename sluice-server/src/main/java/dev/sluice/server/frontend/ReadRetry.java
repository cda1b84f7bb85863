package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.sql.Statement;
import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;

/**
 * A read kept until its answer starts, so that it can be sent again if its replica fails first.
 *
 * @param frame the client's command packet (the session keeps a retained copy while the read runs)
 * @param statement the read's classification, to route it again (null for a PREPARE)
 * @param kind the response it expects
 * @param own the command's own listener
 * @param binding what adapts the packet to a node (prepared statements), or null
 * @param attempts how many times it has been sent
 * @param nodeId where it was sent last
 * @param resend how to send it again when routing it again is not the way (a COM_STMT_PREPARE:
 *     it is prepared on another node, see PreparedCommands); null for statements
 */
record ReadRetry(ByteBuf frame, Statement statement, ResponseKind kind, CommandListener own, Binding binding,
        int attempts, int nodeId, Consumer<ByteBuf> resend) {

    /** A read is tried on at most this many nodes before the failure reaches the client. */
    static final int MAX_ATTEMPTS = 3;
}
