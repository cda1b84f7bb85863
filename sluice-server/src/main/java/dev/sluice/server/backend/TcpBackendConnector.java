package dev.sluice.server.backend;

import dev.sluice.server.net.HostPort;
import dev.sluice.server.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens logged-in backend connections over TCP on a given event loop — the client session's own,
 * so a session and all its backends never cross threads. Whether a connection uses TLS is the
 * node's setting, looked up at every connect (see {@link BackendTls}).
 */
public final class TcpBackendConnector implements BackendConnector {
    private static final Logger LOG = LoggerFactory.getLogger(TcpBackendConnector.class);
    private final Transport transport;
    private final Duration connectTimeout;
    private final Duration loginTimeout;
    private final Function<String, BackendTls> tlsOfNode;
    /** Every backend socket not yet closed (a closed channel leaves by itself). */
    private final ChannelGroup open = new DefaultChannelGroup("backend connections", GlobalEventExecutor.INSTANCE);
    /** Set by {@link #closeAll}: no socket is opened any more, and none is opened again after a close. */
    private volatile boolean closing;

    /** A connector that never uses TLS. */
    public TcpBackendConnector(Transport transport, Duration connectTimeout, Duration loginTimeout) {
        this(transport, connectTimeout, loginTimeout, node -> BackendTls.OFF);
    }

    /** @param tlsOfNode each node's TLS settings, by node name */
    public TcpBackendConnector(Transport transport, Duration connectTimeout, Duration loginTimeout,
            Function<String, BackendTls> tlsOfNode) {
        this.transport = transport;
        this.connectTimeout = connectTimeout;
        this.loginTimeout = loginTimeout;
        this.tlsOfNode = tlsOfNode;
    }

    @Override
    public Future<BackendConnection> connect(EventLoop loop, String nodeName, int nodeId, HostPort address,
            LoginRequest request) {
        Promise<BackendConnection> ready = loop.newPromise();
        if (closing) {
            ready.setFailure(new BackendException("backend '" + nodeName + "': Sluice is stopping"));
            return ready;
        }
        BackendTls tls;
        try {
            tls = tlsOfNode.apply(nodeName);
        } catch (RuntimeException e) {
            ready.setFailure(new BackendException("backend '" + nodeName + "': " + e.getMessage(), e));
            return ready;
        }
        Bootstrap b = new Bootstrap()
                .group(loop)
                .channel(transport.channelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .handler(new BackendChannelInitializer(nodeName, nodeId, address, tls, request, ready));
        AtomicReference<Channel> current = new AtomicReference<>();
        connect(b, nodeName, address, ready, current, true);
        ScheduledFuture<?> timeout = loop.schedule(() -> {
            if (ready.tryFailure(new BackendException("backend '" + nodeName + "' at " + address + " did not complete "
                    + "the login within " + (connectTimeout.plus(loginTimeout)).toMillis() + " ms"))) {
                current.get().close();
            }
        }, connectTimeout.plus(loginTimeout).toMillis(), TimeUnit.MILLISECONDS);
        ready.addListener(f -> timeout.cancel(false));
        return ready;
    }

    /**
     * Closes every backend socket, each on its own I/O thread, and opens none from now on: Sluice's
     * stop, before it ends its I/O threads (see {@link dev.sluice.server.net.Sockets}). A socket
     * still connecting fails with the close and is not connected again.
     */
    public ChannelGroupFuture closeAll() {
        closing = true;
        return open.close();
    }

    /**
     * Closes the backend sockets whose I/O thread has ended and that are still open, and says what
     * each was. Sluice closes every backend socket before it ends its I/O threads, so there should be
     * none: one found was opened during the stop, after that close, or its close did not run before
     * its thread ended; it would otherwise outlive the proxy on the server.
     */
    public List<String> closeOrphans() {
        List<String> orphans = new ArrayList<>();
        for (Channel c : open) {
            if (c.isOpen() && c.eventLoop().isTerminated()) {
                orphans.add(c + " (registered " + c.isRegistered() + ", active " + c.isActive() + ", handlers "
                        + c.pipeline().names() + ")");
                closeWithoutItsThread(c);
            }
        }
        return orphans;
    }

    /**
     * Netty closes a registered channel on its I/O thread only; that thread has ended, so the socket
     * is closed directly (an epoll channel by its file descriptor).
     */
    private static void closeWithoutItsThread(Channel c) {
        if (c instanceof UnixChannel unix) {
            try {
                unix.fd().close();
            } catch (IOException e) {
                LOG.debug("closing the socket of {}: {}", c, e.toString());
            }
        } else {
            c.unsafe().closeForcibly();
        }
    }

    /**
     * One connect. A channel closed before its connect could even start is tried once more on a
     * new socket: that is the mark of an epoll event left over from the socket that held the same
     * descriptor just before (docs/ARCHITECTURE.md, "Stale epoll events"), not of the node. A
     * refused connect or a timeout is the node's answer and is not tried again here.
     */
    private void connect(Bootstrap b, String nodeName, HostPort address, Promise<BackendConnection> ready,
            AtomicReference<Channel> current, boolean mayRetry) {
        ChannelFuture connected = b.connect(address.host(), address.port());
        open.add(connected.channel());
        if (closing) {
            // closeAll may have gone over the group before this socket joined it.
            connected.channel().close();
        }
        current.set(connected.channel());
        connected.addListener(f -> {
            if (f.isSuccess() || ready.isDone()) {
                return;
            }
            if (mayRetry && !closing && f.cause() instanceof ClosedChannelException) {
                LOG.debug("backend '{}' at {}: the connection was closed before it connected (an epoll event of an "
                        + "earlier socket with the same descriptor); connecting again", nodeName, address);
                connect(b, nodeName, address, ready, current, false);
                return;
            }
            ready.tryFailure(new BackendException("cannot connect to backend '" + nodeName + "' at " + address
                    + ": " + (f.cause().getMessage() != null ? f.cause().getMessage() : f.cause()), f.cause()));
        });
    }
}
