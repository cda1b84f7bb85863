package dev.sluice.server.admin;

import dev.sluice.server.config.AdminConfig;
import dev.sluice.server.history.RecentHistory;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.net.Sockets;
import dev.sluice.server.net.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP server ({@code admin.listen}): the API, {@code /metrics} and the dashboard.
 *
 * <p>It runs on its own single-threaded event loop, apart from the proxy's I/O threads, for two
 * reasons: an operator's request (a persist writing a file, a describe walking every session)
 * never delays a client's statement, and admin operations run one at a time, so a change is
 * validated and applied before the next one is looked at.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    /** Largest request body: an endpoint definition is a few hundred bytes. */
    static final int MAX_BODY_BYTES = 1 << 20;
    /** An idle keep-alive connection is closed after this long. */
    private static final int IDLE_SECONDS = 60;
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 2;

    private final AdminConfig config;
    private final AdminRequestHandler handler;
    private final Transport transport = Transport.best();
    private EventLoopGroup group;
    private Channel channel;
    /** The open HTTP connections, closed by the server itself when it stops (see {@link Sockets}). */
    private final ChannelGroup connections = new DefaultChannelGroup("admin connections", GlobalEventExecutor.INSTANCE);

    /** {@code history} is what {@code GET /v1/history} and the dashboard's charts show. */
    public AdminServer(AdminConfig config, ProxyControl control, SluiceMetrics metrics, RecentHistory history) {
        this.config = config;
        BearerToken token = new BearerToken(config.token().value());
        this.handler = new AdminRequestHandler(new AdminApi(control, metrics, history, new Dashboard(), token));
        if (token.isOpen() && !isLoopback(config.listen().host())) {
            LOG.warn("the admin API listens on {} without admin.token: anyone who reaches it can change the proxy",
                    config.listen());
        }
    }

    /** Starts listening; returns the bound address (the port is chosen when {@code admin.listen} says 0). */
    public synchronized InetSocketAddress start() throws InterruptedException {
        if (group != null) {
            throw new IllegalStateException("the admin server is started already");
        }
        group = transport.newGroup(1, "sluice-admin");
        ServerBootstrap b = new ServerBootstrap().group(group).channel(transport.serverChannelClass())
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast(new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS),
                                new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY_BYTES), handler);
                    }
                });
        try {
            channel = b.bind(config.listen().host(), config.listen().port()).sync().channel();
        } catch (Exception e) {
            // sync() rethrows the bind failure as it is (a BindException, checked but undeclared).
            close();
            if (e instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            throw new IllegalStateException("cannot listen for the admin API on " + config.listen() + ": "
                    + e.getMessage(), e);
        }
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
        LOG.info("admin API, metrics and dashboard on http://{}:{}/", bound.getHostString(), bound.getPort());
        return bound;
    }

    /** The bound address; only after {@link #start()}. */
    public synchronized InetSocketAddress address() {
        if (channel == null) {
            throw new IllegalStateException("the admin server is not started");
        }
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public synchronized void close() {
        if (channel != null) {
            channel.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            channel = null;
        }
        Sockets.awaitClosed(Duration.ofSeconds(SHUTDOWN_TIMEOUT_SECONDS), connections.close());
        if (group != null) {
            // Bounded: during JVM shutdown the termination notice may never be delivered.
            group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS + 1, TimeUnit.SECONDS);
        }
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
