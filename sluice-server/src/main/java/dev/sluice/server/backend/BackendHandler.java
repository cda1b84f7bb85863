package dev.sluice.server.backend;

import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.Promise;
import java.io.IOException;

/**
 * The pipeline end of a backend channel: runs the login, then hands every byte to its
 * {@link BackendConnection}. Login packets are few and small, so they are framed here simply;
 * command-phase bytes are never framed, only scanned (see {@code ResponseTracker}).
 */
final class BackendHandler extends ChannelInboundHandlerAdapter {
    private final String nodeName;
    private final int nodeId;
    private final BackendLogin login;
    private final Promise<BackendConnection> ready;
    private ByteBuf loginBytes;
    private BackendConnection connection;

    BackendHandler(String nodeName, int nodeId, BackendLogin login, Promise<BackendConnection> ready) {
        this.nodeName = nodeName;
        this.nodeId = nodeId;
        this.login = login;
        this.ready = ready;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf bytes = (ByteBuf) msg;
        if (connection != null) {
            connection.onRead(bytes);
            return;
        }
        if (loginBytes == null) {
            loginBytes = ctx.alloc().buffer();
        }
        loginBytes.writeBytes(bytes);
        bytes.release();
        runLogin(ctx);
    }

    private void runLogin(ChannelHandlerContext ctx) {
        while (connection == null && loginBytes.readableBytes() >= Packets.HEADER_SIZE) {
            int start = loginBytes.readerIndex();
            int length = Packets.payloadLength(loginBytes, start);
            if (loginBytes.readableBytes() < Packets.HEADER_SIZE + length) {
                return;
            }
            int seq = Packets.sequenceId(loginBytes, start);
            ByteBuf payload = loginBytes.slice(start + Packets.HEADER_SIZE, length);
            loginBytes.readerIndex(start + Packets.HEADER_SIZE + length);
            LoginStep step = login.onPacket(payload, seq);
            if (step instanceof LoginStep.Reply reply) {
                ByteBuf out = ctx.alloc().buffer(Packets.HEADER_SIZE + reply.payload().readableBytes());
                Packets.writePacket(out, reply.sequenceId(), reply.payload());
                reply.payload().release();
                ctx.writeAndFlush(out);
            } else if (step instanceof LoginStep.Success ok) {
                connection = new BackendConnection(nodeName, nodeId, ctx.channel(), ok.greeting(), ok.capabilities());
                ByteBuf rest = loginBytes.readableBytes() > 0 ? loginBytes.retainedSlice() : null;
                loginBytes.release();
                loginBytes = null;
                if (!ready.trySuccess(connection)) {
                    // The waiter gave up (timeout): nobody will use this connection.
                    ctx.close();
                }
                if (rest != null) {
                    connection.onRead(rest);
                }
                return;
            } else if (step instanceof LoginStep.Failure failure) {
                ready.tryFailure(failure.cause());
                ctx.close();
                return;
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (connection != null) {
            connection.onReadComplete();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (loginBytes != null) {
            loginBytes.release();
            loginBytes = null;
        }
        IOException gone = new IOException("connection to backend '" + nodeName + "' closed");
        ready.tryFailure(new BackendException("backend '" + nodeName + "' closed the connection during login", gone));
        if (connection != null) {
            connection.onClosed(new BackendException("lost connection to backend '" + nodeName + "'", gone));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ready.tryFailure(new BackendException("backend '" + nodeName + "': " + cause.getMessage(), cause));
        ctx.close();
    }
}
