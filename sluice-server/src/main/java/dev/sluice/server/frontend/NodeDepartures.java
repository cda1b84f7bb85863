package dev.sluice.server.frontend;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.BackendConnection;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.BitSet;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session leaving nodes: those routing has left (removed from the configuration, drained) once
 * their connection is idle, and replicas the monitor found unreachable at once, so that nothing
 * is ever sent to a hung node again (BEHAVIOUR §4, §8).
 *
 * <p>An unreachable replica running the client's read whose answer has not started is left at
 * once: its connection is closed, which fails the read into a retry on another node. A connection
 * still being opened there is given up, and what waited for it goes elsewhere. An answer already
 * streaming is cut only once it stops coming (see {@link #cutIfStalled}). The primary is not
 * treated so: a write sent there may have run, and only its own connection can tell.
 */
final class NodeDepartures {
    private static final Logger LOG = LoggerFactory.getLogger(NodeDepartures.class);

    private final long connectionId;
    private final Channel client;
    private final Supplier<EndpointView> view;
    private final RoutingSession routing;
    private final SessionBackends backends;
    private final ClientForwarder forwarder;
    private final BooleanSupplier commandRunning;
    private final Duration stallTimeout;
    /** Nodes routing has left whose connection was still busy then: closed once it is idle. */
    private final BitSet retiring = new BitSet();

    NodeDepartures(long connectionId, Channel client, Supplier<EndpointView> view, RoutingSession routing,
            SessionBackends backends, ClientForwarder forwarder, BooleanSupplier commandRunning,
            Duration stallTimeout) {
        this.connectionId = connectionId;
        this.client = client;
        this.view = view;
        this.routing = routing;
        this.backends = backends;
        this.forwarder = forwarder;
        this.commandRunning = commandRunning;
        this.stallTimeout = stallTimeout;
    }

    /** Whether a node routing has left still has a connection, busy with an answer. */
    boolean anyRetiring() {
        return !retiring.isEmpty();
    }

    /**
     * Closes connections to nodes removed or being drained. Routing leaves such a node once and
     * for all, but its connection may still be answering a session command sent to every backend
     * (the client already has another's answer); that one is remembered and closed when its answer
     * is in, or the node would keep this session, and a drain would never reach 0 sessions.
     */
    void leaveRetiredNodes() {
        for (int id : routing.leaveRetiredNodes(view.get().topology())) {
            retiring.set(id);
        }
        for (int id = retiring.nextSetBit(0); id >= 0; id = retiring.nextSetBit(id + 1)) {
            BackendConnection b = backends.ready(id);
            if (b == null) {
                retiring.clear(id);
            } else if (b.pendingResponses() == 0) {
                backends.remove(b);
                retiring.clear(id);
            }
        }
    }

    /** The monitor found {@code nodeId} unreachable; the session leaves it if it is a replica. */
    void leaveIfUnreachable(int nodeId) {
        if (!unreachableReplica(nodeId)) {
            return;
        }
        backends.abandonOpening(nodeId, "replica '" + view.get().topology().node(nodeId).get().name()
                + "' stopped answering the monitor");
        BackendConnection b = backends.ready(nodeId);
        if (b == null) {
            return;
        }
        if (commandRunning.getAsBoolean() && forwarder.source() == b && forwarder.bytesForwarded() > 0) {
            cutIfStalled(b, forwarder.bytesForwarded());
            return;
        }
        LOG.debug("session {}: replica {} is unreachable; leaving it", connectionId, b.nodeName());
        backends.remove(b);
    }

    private boolean unreachableReplica(int nodeId) {
        Optional<Node> node = view.get().topology().node(nodeId);
        return node.isPresent() && !node.get().isPrimary() && !node.get().state().reachable();
    }

    /**
     * An answer streaming from a replica the monitor found unreachable: its bytes show the node was
     * alive a moment ago, and cutting it costs the client its connection, so it is left to finish
     * while it makes progress. If nothing more comes for the monitor's query timeout (the node
     * hangs in the middle of it) it is cut: a lost connection is better than one that waits for
     * ever. A client too slow to take more is not the node's fault, and is waited for.
     */
    private void cutIfStalled(BackendConnection b, long forwardedBefore) {
        client.eventLoop().schedule(() -> {
            if (!client.isOpen() || !commandRunning.getAsBoolean() || forwarder.source() != b
                    || backends.ready(b.nodeId()) != b || !unreachableReplica(b.nodeId())) {
                return;
            }
            if (client.isWritable() && forwarder.bytesForwarded() == forwardedBefore) {
                LOG.info("session {}: replica {} stopped in the middle of an answer; ending the client connection",
                        connectionId, b.nodeName());
                backends.remove(b);
                return;
            }
            cutIfStalled(b, forwarder.bytesForwarded());
        }, stallTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
