package dev.sluice.server.frontend;

import dev.sluice.server.net.Transport;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.net.InetSocketAddress;

/**
 * The listening socket of one endpoint. Each accepted client gets a frame decoder, its memory
 * budget and the login handler (TLS goes in front of the decoder if the client asks for it); its
 * backends will live on the same event loop.
 */
public final class EndpointListener {
    private static final int ACCEPT_BACKLOG = 1024;

    private final EndpointRuntime endpoint;
    private Channel channel;

    public EndpointListener(EndpointRuntime endpoint) {
        this.endpoint = endpoint;
    }

    public EndpointRuntime endpoint() {
        return endpoint;
    }

    /** {@code clients} gets every accepted client socket, for Sluice to close them itself when it stops. */
    public void bind(Transport transport, EventLoopGroup boss, EventLoopGroup workers, ChannelGroup clients,
            ProxyRuntime proxy) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_BACKLOG, ACCEPT_BACKLOG)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        clients.add(ch);
                        // What a session may hold (limits.session-memory): the outbound share bounds the memory
                        // a slow reader of a huge result can pin; the inbound budget, a client that sends and
                        // does not read, or a slow backend.
                        SessionMemory memory = SessionMemory.of(proxy.config().limits().sessionMemory());
                        ch.config().setWriteBufferWaterMark(memory.outbound());
                        ch.pipeline().addLast("allow", new AllowListGate(endpoint));
                        DrainBeforeClose drain = new DrainBeforeClose();
                        ch.pipeline().addLast("drain", drain);
                        ch.pipeline().addLast("frames", new ClientFrameDecoder(proxy.config().limits().maxPacketSize(),
                                drain));
                        ch.pipeline().addLast("budget", new InboundBudget(memory.inbound()));
                        ch.pipeline().addLast("login", new ClientHandshakeHandler(proxy, endpoint));
                    }
                });
        var listen = endpoint.config().listen();
        channel = b.bind(new InetSocketAddress(listen.host(), listen.port())).sync().channel();
    }

    /** The bound address (the port is real even when the configuration asked for port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Stops accepting; sessions already running go on until they end. */
    public void close() {
        stopAccepting().awaitUninterruptibly(1, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Starts closing the listening socket, without waiting: several endpoints stop at once. */
    public Future<Void> stopAccepting() {
        return channel == null ? ImmediateEventExecutor.INSTANCE.newSucceededFuture(null) : channel.close();
    }
}
