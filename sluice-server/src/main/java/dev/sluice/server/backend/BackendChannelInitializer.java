package dev.sluice.server.backend;

import dev.sluice.server.net.HostPort;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.util.concurrent.Promise;

/**
 * Sets up a backend channel's pipeline: just the login-then-forward handler (which puts TLS in
 * front of itself when the login switches to it).
 */
final class BackendChannelInitializer extends ChannelInitializer<Channel> {
    private final String nodeName;
    private final int nodeId;
    private final HostPort address;
    private final BackendTls tls;
    private final LoginRequest request;
    private final Promise<BackendConnection> ready;

    BackendChannelInitializer(String nodeName, int nodeId, HostPort address, BackendTls tls, LoginRequest request,
            Promise<BackendConnection> ready) {
        this.nodeName = nodeName;
        this.nodeId = nodeId;
        this.address = address;
        this.tls = tls;
        this.request = request;
        this.ready = ready;
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline().addLast("backend", new BackendHandler(nodeName, nodeId, address, tls,
                new BackendLogin(request, nodeName, tls.mode(), ch.alloc()), ready));
    }
}
