package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.COM_QUERY;
import static dev.sluice.protocol.Command.COM_STMT_BULK_EXECUTE;
import static dev.sluice.protocol.Command.COM_STMT_EXECUTE;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.StatementDigest;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.digest.DigestEntry;
import dev.sluice.server.digest.DigestKey;
import dev.sluice.server.digest.LoopDigests;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.runtime.EndpointRuntime;
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
 * With {@code query-digests: false} no digest is computed and only the histogram counts.
 */
final class StatementCosts {
    /** A COM_STMT_EXECUTE's fixed part up to its statement id: the command byte and the id (4). */
    private static final int EXECUTE_ID_END = 5;

    /** Null when query digests are off. */
    private final LoopDigests digests;
    private final SluiceMetrics metrics;
    private final EndpointRuntime endpoint;
    private final SessionLogin login;
    private final RoutingSession routing;
    private final PreparedStatements statements;
    /** The command running now is a statement: its answer is counted. */
    private boolean counting;
    /** The digest of the statement running now; null when it is not counted in a digest. */
    private DigestEntry running;
    private long startedNanos;

    StatementCosts(LoopDigests digests, SluiceMetrics metrics, EndpointRuntime endpoint, SessionLogin login,
            RoutingSession routing, PreparedStatements statements) {
        this.digests = digests;
        this.metrics = metrics;
        this.endpoint = endpoint;
        this.login = login;
        this.routing = routing;
        this.statements = statements;
    }

    /** The client's command {@code command} (its whole packet, header included) is about to run. */
    void commandStarts(int command, ByteBuf packet) {
        startedNanos = System.nanoTime();
        running = null;
        counting = false;
        if (command == COM_QUERY) {
            counting = true;
            if (digests != null) {
                running = digests.find(digestOf(packet), endpoint.name(), login.identity().user(), schema());
            }
        } else if ((command == COM_STMT_EXECUTE || command == COM_STMT_BULK_EXECUTE)
                && Packets.payloadLength(packet, packet.readerIndex()) >= EXECUTE_ID_END) {
            Optional<PreparedStatement> found = statements.get(packet.getIntLE(packet.readerIndex()
                    + Packets.HEADER_SIZE + 1));
            counting = found.isPresent();
            if (counting && digests != null) {
                running = execute(found.get());
            }
        }
    }

    /** The answer to the current command, from node {@code nodeId}, is complete: counted if it was a statement's. */
    void answered(int nodeId, ResponseTracker tracker) {
        if (!counting) {
            return;
        }
        counting = false;
        long nanos = System.nanoTime() - startedNanos;
        Optional<Node> node = endpoint.view().topology().node(nodeId);
        DigestEntry done = running;
        if (done != null) {
            running = null;
            boolean onPrimary = node.isPresent() && node.get().isPrimary();
            digests.record(done, nanos, tracker.endedWithError(), tracker.resultRows(), onPrimary,
                    System.currentTimeMillis());
        }
        metrics.statementAnswered(endpoint.name(), node.isPresent() ? node.get().name() : null, nanos);
    }

    private StatementDigest digestOf(ByteBuf packet) {
        int textStart = packet.readerIndex() + Packets.HEADER_SIZE + 1;
        int length = packet.writerIndex() - textStart;
        if (packet.hasArray()) {
            return digests.digester().digest(packet.array(), packet.arrayOffset() + textStart, length,
                    routing.clientCharset());
        }
        byte[] text = digests.scratch(length);
        packet.getBytes(textStart, text, 0, length);
        return digests.digester().digest(text, 0, length, routing.clientCharset());
    }

    /** An EXECUTE counts under its prepared text's digest, computed at its first EXECUTE and kept. */
    private DigestEntry execute(PreparedStatement ps) {
        DigestKey key = ps.digest();
        if (key == null) {
            byte[] prepare = ps.prepareFrame();
            int textStart = Packets.HEADER_SIZE + 1;
            key = DigestKey.of(digests.digester().digest(prepare, textStart, prepare.length - textStart,
                    routing.clientCharset()));
            ps.digest(key);
        }
        return digests.find(key, endpoint.name(), login.identity().user(), schema());
    }

    private String schema() {
        Optional<String> changed = routing.schema();
        return changed.isPresent() ? changed.get() : login.database().orElse("");
    }
}
