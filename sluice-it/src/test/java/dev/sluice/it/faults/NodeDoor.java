package dev.sluice.it.faults;

import static dev.sluice.it.support.SocketPump.closeQuietly;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SocketPump;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay in front of one node, whose door the test can shut: the connections open when it
 * chose to {@link #keepOpenOnes() keep them} go on, those opened later are cut, and new ones are
 * reset as soon as they are accepted. Sluice then sees the node die for its sessions while its
 * monitor, on a long-lived connection opened before, still finds it alive — the order of events
 * of a node that dies just before the monitor's next check, without racing that check. The
 * listening port stays open until {@link #close()}: closed earlier, it could be bound by any other
 * process of a busy machine before Sluice connects to it again. What it does is printed, for the
 * test's log.
 */
final class NodeDoor implements AutoCloseable {
        private final ServerSocket listener;
    private final int upstreamPort;
    /** Both sockets of every relayed connection, in the order they were accepted. */
    private final List<Socket[]> connections = new ArrayList<>();
    private int kept;
    private boolean shut;

    NodeDoor(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "node-door");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Where Sluice is to find the node. */
    String address() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** The connections open now outlive {@link #shut()}. */
    synchronized void keepOpenOnes() {
        kept = connections.size();
        System.out.println("[door " + address() + "] keeps the " + kept + " connections open now");
    }

    /** Resets new connections from now on and cuts those opened after {@link #keepOpenOnes()}. */
    synchronized void shut() {
        shut = true;
        System.out.println("[door " + address() + "] shut: resets new connections, cuts "
                + (connections.size() - kept) + " of " + connections.size());
        for (Socket[] pair : connections.subList(kept, connections.size())) {
            closeQuietly(pair[0]);
            closeQuietly(pair[1]);
        }
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (resetIfShut(client, null)) {
                    continue;
                }
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 5_000);
                synchronized (this) {
                    // Shut while this one was connecting upstream: it must not outlive the cut.
                    if (resetIfShut(client, upstream)) {
                        continue;
                    }
                    System.out.println("[door " + address() + "] relays " + client.getRemoteSocketAddress() + " to "
                            + upstream.getLocalSocketAddress());
                    connections.add(new Socket[] {client, upstream});
                }
                SocketPump.start(client, upstream, "node-door-pump", null);
                SocketPump.start(upstream, client, "node-door-pump", null);
            } catch (IOException e) {
                // closed
            }
        }
    }

    private synchronized boolean resetIfShut(Socket client, Socket upstream) {
        if (!shut) {
            return false;
        }
        System.out.println("[door " + address() + "] resets " + client.getRemoteSocketAddress());
        try {
            client.setSoLinger(true, 0);
        } catch (IOException e) {
            // closed below all the same
        }
        closeQuietly(client);
        if (upstream != null) {
            closeQuietly(upstream);
        }
        return true;
    }

    @Override
    public synchronized void close() throws IOException {
        listener.close();
        for (Socket[] pair : connections) {
            closeQuietly(pair[0]);
            closeQuietly(pair[1]);
        }
    }

    /** The sandbox's nodes, the primary behind this door, and one read-write endpoint {@code rw}. */
    String readWriteConfig(SandboxCluster cluster) {
        StringBuilder b = new StringBuilder();
        b.append("monitor: {user: ").append(SandboxCluster.MONITOR_USER).append(", password: ")
                .append(SandboxCluster.MONITOR_PASSWORD).append(", interval: 500ms}\n");
        b.append("admin: {listen: 127.0.0.1:0}\n");
        b.append("nodes:\n");
        for (SandboxNode n : cluster.nodes()) {
            b.append("  - {name: ").append(n.name()).append(", address: ")
                    .append(n.isPrimary() ? address() : n.address())
                    .append(", role: ").append(n.isPrimary() ? "primary" : "replica").append("}\n");
        }
        b.append("""
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                """);
        return b.toString();
    }
}
