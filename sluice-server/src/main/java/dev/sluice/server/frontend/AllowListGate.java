package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.Capabilities;
import dev.sluice.server.net.Cidr;
import dev.sluice.server.runtime.EndpointRuntime;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses a client whose address is not in the endpoint's allow-list, right after connect and
 * before any greeting, with the error a server gives a host it does not know. Reads the list at
 * each connection, so a change applies from the next connection (BEHAVIOUR §8).
 */
final class AllowListGate extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AllowListGate.class);

    private final EndpointRuntime endpoint;

    AllowListGate(EndpointRuntime endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetSocketAddress remote = (InetSocketAddress) ctx.channel().remoteAddress();
        if (remote == null || remote.getAddress() == null || allowed(remote)) {
            ctx.pipeline().remove(this);
            ctx.fireChannelActive();
            return;
        }
        // RFC 5952 form, as the server writes it: ::1, not 0:0:0:0:0:0:0:1.
        String host = io.netty.util.NetUtil.toAddressString(remote.getAddress());
        LOG.info("endpoint '{}': refused {} (not in its allow list)", endpoint.name(), host);
        ctx.writeAndFlush(Replies.error(ctx.alloc(), 0, Capabilities.CLIENT_PROTOCOL_41, ErrorCodes.ER_HOST_NOT_PRIVILEGED,
                "HY000", "Host '" + host + "' is not allowed to connect to endpoint '" + endpoint.name()
                        + "': its address is not in the endpoint's allow list"))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private boolean allowed(InetSocketAddress remote) {
        for (String block : endpoint.config().policy().allow()) {
            if (Cidr.parse(block).map(c -> c.contains(remote.getAddress())).orElse(false)) {
                return true;
            }
        }
        return false;
    }
}
