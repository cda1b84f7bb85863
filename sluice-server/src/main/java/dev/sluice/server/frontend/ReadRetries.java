package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseKind;
import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;

/**
 * The session's read kept for a retry (BEHAVIOUR §4): should its replica fail before any byte of the
 * answer reached the client, the read is routed again and the client sees no error. At most one
 * read is kept, the current command's; a read is tried on at most {@link ReadRetry#MAX_ATTEMPTS}
 * nodes.
 */
final class ReadRetries {
    private ReadRetry kept;
    /** Times the current command was sent as a read (a replica failed under the others). */
    private int attempts;

    /** A new client command: its reads start counting from zero. */
    void newCommand() {
        attempts = 0;
    }

    /**
     * Keeps a copy of a read about to go to a replica outside a transaction. Taken before the
     * packet is adapted to the node, so a retry can adapt it to another. Packets of 16 MB and more
     * are not kept: their continuation frames are already on their way. {@code again} sends it
     * again should the node fail it.
     */
    void keep(RoutedCommand read, int nodeId, Consumer<ReadRetry> again) {
        release();
        ByteBuf frame = read.frame();
        if (Packets.payloadLength(frame, frame.readerIndex()) < Packets.MAX_PAYLOAD) {
            // An EXECUTE is adapted in place (its statement id becomes the backend's): a view of
            // the same bytes would be retried with the first node's id, naming another statement
            // (or none) on the next node. A text query is sent as it is, so a view is enough.
            ByteBuf copy = read.binary() ? frame.copy() : frame.retainedDuplicate();
            kept = new ReadRetry(new RoutedCommand(read.statement(), read.decision(), copy, read.kind(), read.own(),
                    read.binding()), ++attempts, nodeId, again);
        }
    }

    /**
     * Keeps a COM_STMT_PREPARE sent to {@code nodeId}: should that node fail (or be impossible to
     * reach) before any byte of the answer reached the client, {@code resend} prepares it on
     * another node and the client sees no error. Without it, a client that prepares its reads
     * (sysbench, Connector/J with useServerPrepStmts) gets an error whenever it prepares just as
     * a replica dies, before the monitor has taken that replica out of the readable set.
     */
    void keepPrepare(ByteBuf frame, int nodeId, Consumer<ReadRetry> resend) {
        release();
        if (Packets.payloadLength(frame, frame.readerIndex()) < Packets.MAX_PAYLOAD) {
            kept = new ReadRetry(new RoutedCommand(null, null, frame.retainedDuplicate(), ResponseKind.PREPARE,
                    CommandListener.NONE, null), ++attempts, nodeId, resend);
        }
    }

    /**
     * The replica a read waits on for its consistency is open and holds the session's state: the
     * copy kept while it opened is dropped, and the opening does not count as one of the read's
     * tries (sending the read after the wait does).
     */
    void opened() {
        if (kept != null) {
            release();
            attempts--;
        }
    }

    /** The kept read, handed over to be routed again, if it ran on {@code nodeId} and may be tried again. */
    ReadRetry takeIfRanOn(int nodeId) {
        if (kept == null || kept.nodeId() != nodeId || kept.attempts() > ReadRetry.MAX_ATTEMPTS) {
            return null;
        }
        ReadRetry r = kept;
        kept = null;
        return r;
    }

    /** Forgets the kept read: its answer has started, the command ended, or the session closes. */
    void release() {
        if (kept != null) {
            kept.command().release();
            kept = null;
        }
    }
}
