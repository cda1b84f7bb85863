package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Feeds a logged-in client's packets to its {@link ClientSession}. */
final class ClientSessionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSessionHandler.class);
    private final ClientSession session;

    ClientSessionHandler(ClientSession session) {
        this.session = session;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ClientFrameDecoder.OversizedPacket big) {
            session.failAndClose(big.sequenceId() + 1, ErrorCodes.ER_NET_PACKET_TOO_LARGE, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "Got a packet bigger than 'max_allowed_packet' bytes (" + big.size() + " > " + big.limit()
                            + "); raise limits.max-packet-size in Sluice's configuration if this is intended");
            return;
        }
        session.onFrame((ByteBuf) msg);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            session.onClientWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        session.onClientClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("session {}: closed after an error", session.connectionId(), cause);
        session.close();
    }
}
