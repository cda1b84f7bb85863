package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.digest.DigestEntry;
import dev.sluice.server.digest.DigestKey;
import dev.sluice.server.digest.LoopDigests;
import dev.sluice.server.metrics.SluiceMetrics;
import io.netty.buffer.ByteBuf;
import java.util.Optional;

/**
 * What each statement of a session cost (BEHAVIOUR §12): the time from its arrival to the end of
 * its answer, counted in its query digest (with the answer's error, rows and node) and in the
 * statement latency histogram of its endpoint and node. A statement is a COM_QUERY or a
 * COM_STMT_EXECUTE (counted under its prepared text's digest). Statements Sluice answers itself
 * reach no backend and are not counted.
 *
 * <p>On the path of every statement, so it allocates nothing for a digest seen before: the digest
 * is computed into the I/O thread's reused buffer and found by hash (see {@link LoopDigests}).
 */
final class StatementCosts {
    private final ClientSession session;
    private final LoopDigests digests;
    private final SluiceMetrics metrics;
    private final String endpoint;
    /** The digest of the statement running now; null when the command is not one to count. */
    private DigestEntry running;
    private long startedNanos;

    StatementCosts(ClientSession session) {
        this.session = session;
        this.digests = session.proxy().digests().forLoop(session.client().eventLoop());
        this.metrics = session.proxy().metrics();
        this.endpoint = session.endpoint().name();
    }

    /** A COM_QUERY (header included) is about to be routed. */
    void statement(ByteBuf frame, ClientCharset charset) {
        startedNanos = System.nanoTime();
        int textStart = frame.readerIndex() + Packets.HEADER_SIZE + 1;
        int length = frame.writerIndex() - textStart;
        byte[] text;
        int offset;
        if (frame.hasArray()) {
            text = frame.array();
            offset = frame.arrayOffset() + textStart;
        } else {
            text = digests.scratch(length);
            offset = 0;
            frame.getBytes(textStart, text, 0, length);
        }
        running = digests.find(digests.digester().digest(text, offset, length, charset), endpoint,
                session.identity().user(), schema());
    }

    /** A COM_STMT_EXECUTE (header included): the digest is its prepared text's, computed at its first EXECUTE. */
    void execute(ByteBuf frame, ClientCharset charset) {
        startedNanos = System.nanoTime();
        Optional<PreparedStatement> found = session.statements().get(frame.getIntLE(frame.readerIndex()
                + Packets.HEADER_SIZE + 1));
        if (found.isEmpty()) {
            running = null;
            return;
        }
        PreparedStatement ps = found.get();
        DigestKey key = ps.digest();
        if (key == null) {
            byte[] prepare = ps.prepareFrame();
            int textStart = Packets.HEADER_SIZE + 1;
            key = DigestKey.of(digests.digester().digest(prepare, textStart, prepare.length - textStart, charset));
            ps.digest(key);
        }
        running = digests.find(key, endpoint, session.identity().user(), schema());
    }

    /** Any other command: its answer is not a statement's. */
    void otherCommand() {
        running = null;
    }

    /** The answer to the current command is complete: counted if it was a statement's. */
    void answered(int nodeId, ResponseTracker tracker) {
        DigestEntry done = running;
        if (done == null) {
            return;
        }
        running = null;
        long nanos = System.nanoTime() - startedNanos;
        Optional<Node> node = session.endpoint().view().topology().node(nodeId);
        boolean onPrimary = node.isPresent() && node.get().isPrimary();
        digests.record(done, nanos, tracker.endedWithError(), tracker.resultRows(), onPrimary,
                System.currentTimeMillis());
        metrics.statementAnswered(endpoint, node.isPresent() ? node.get().name() : null, nanos);
    }

    private String schema() {
        Optional<String> changed = session.routing().schema();
        return changed.isPresent() ? changed.get() : session.database().orElse("");
    }
}
