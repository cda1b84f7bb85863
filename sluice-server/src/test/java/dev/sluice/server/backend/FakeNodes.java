package dev.sluice.server.backend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.server.config.HostPort;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Backend servers played by the test: every connection a session opens is a {@link FakeBackend}
 * over an {@link EmbeddedChannel}, logged in at once, whose commands the test reads and answers.
 * A node can be made to refuse connections, as a dead server's port does.
 */
public final class FakeNodes implements BackendConnector {
    /** What a MariaDB 10.11 server offers. */
    public static final long SERVER_CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SECURE_CONNECTION
            | Capabilities.CLIENT_PLUGIN_AUTH | Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | Capabilities.CLIENT_TRANSACTIONS | Capabilities.CLIENT_LONG_PASSWORD | Capabilities.CLIENT_MULTI_RESULTS
            | Capabilities.CLIENT_MULTI_STATEMENTS | Capabilities.CLIENT_PS_MULTI_RESULTS
            | Capabilities.CLIENT_SESSION_TRACK | Capabilities.CLIENT_DEPRECATE_EOF | Capabilities.CLIENT_CONNECT_WITH_DB
            | Capabilities.CLIENT_CONNECT_ATTRS | Capabilities.CLIENT_LONG_FLAG | Capabilities.CLIENT_LOCAL_FILES;
    private static final String VERSION = "10.11.19-MariaDB";
    private static final int UTF8MB4_GENERAL_CI = 45;

    private final List<FakeBackend> opened = new ArrayList<>();
    private final Set<String> refusing = new HashSet<>();
    private long nextThreadId = 100;
    private Runnable sessionTasks = () -> { };

    /** What runs the sessions' event loop: called whenever a fake backend answers or is read. */
    public void sessionTasks(Runnable tasks) {
        this.sessionTasks = tasks;
    }

    @Override
    public Future<BackendConnection> connect(EventLoop loop, String nodeName, int nodeId, HostPort address,
            LoginRequest request) {
        if (refusing.contains(nodeName)) {
            return loop.newFailedFuture(new BackendException("cannot connect to backend '" + nodeName + "' at "
                    + address + ": Connection refused"));
        }
        long capabilities = BackendCapabilities.towardBackend(request.clientCapabilities(), SERVER_CAPABILITIES,
                request.database().isPresent());
        HandshakeV10 greeting = new HandshakeV10(VERSION, nextThreadId++, new byte[20], SERVER_CAPABILITIES,
                UTF8MB4_GENERAL_CI, 0, "mysql_native_password");
        EmbeddedChannel channel = new EmbeddedChannel();
        // As in production, a session's backend channels live on its client's event loop: what the
        // session schedules through a backend's channel runs with the session's own tasks.
        channel.deregister().syncUninterruptibly();
        loop.register(channel).syncUninterruptibly();
        BackendConnection connection = new BackendConnection(nodeName, nodeId, channel, greeting, capabilities);
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                connection.onClosed(new BackendException("lost connection to backend '" + nodeName + "'",
                        new IOException("connection to backend '" + nodeName + "' closed")));
            }

            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                connection.writabilityChanged();
            }
        });
        FakeBackend backend = new FakeBackend(connection, channel, request, () -> sessionTasks.run());
        opened.add(backend);
        return loop.newSucceededFuture(connection);
    }

    /** Connections opened to {@code node} so far, oldest first. */
    public List<FakeBackend> of(String node) {
        return opened.stream().filter(b -> b.node().equals(node)).toList();
    }

    /** The newest connection opened to {@code node}. */
    public FakeBackend last(String node) {
        List<FakeBackend> all = of(node);
        if (all.isEmpty()) {
            throw new AssertionError("no connection was opened to " + node);
        }
        return all.get(all.size() - 1);
    }

    public List<FakeBackend> all() {
        return List.copyOf(opened);
    }

    /** From now on {@code node} refuses connections (or, with false, takes them again). */
    public void refuse(String node, boolean refuse) {
        if (refuse) {
            refusing.add(node);
        } else {
            refusing.remove(node);
        }
    }

    /** Releases whatever the sessions wrote to every fake connection and was never read. */
    public void releaseAll() {
        for (FakeBackend b : opened) {
            b.releaseUnread();
        }
    }
}
