package dev.sluice.server.backend;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.util.concurrent.Promise;

/** Sets up a backend channel's pipeline: just the login-then-forward handler. */
final class BackendChannelInitializer extends ChannelInitializer<Channel> {
    private final String nodeName;
    private final int nodeId;
    private final LoginRequest request;
    private final Promise<BackendConnection> ready;

    BackendChannelInitializer(String nodeName, int nodeId, LoginRequest request, Promise<BackendConnection> ready) {
        this.nodeName = nodeName;
        this.nodeId = nodeId;
        this.request = request;
        this.ready = ready;
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline().addLast("backend", new BackendHandler(nodeName, nodeId,
                new BackendLogin(request, nodeName, ch.alloc()), ready));
    }
}
