package dev.sluice.server.backend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.server.net.HostPort;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.nio.channels.NotYetConnectedException;

/**
 * The pipeline end of a backend channel: runs the login, then hands every byte to its
 * {@link BackendConnection}. Login packets are few and small, so they are framed here simply;
 * command-phase bytes are never framed, only scanned (see {@code ResponseTracker}).
 *
 * <p>When the login switches to TLS, the SSLRequest goes out in clear, then an {@link SslHandler}
 * is put in front of this handler and, once its handshake is done, the login goes on encrypted.
 */
final class BackendHandler extends ChannelInboundHandlerAdapter {
    private final String nodeName;
    private final int nodeId;
    private final HostPort address;
    private final BackendTls tls;
    private final BackendLogin login;
    private final Promise<BackendConnection> ready;
    private ByteBuf loginBytes;
    private BackendConnection connection;

    BackendHandler(String nodeName, int nodeId, HostPort address, BackendTls tls, BackendLogin login,
            Promise<BackendConnection> ready) {
        this.nodeName = nodeName;
        this.nodeId = nodeId;
        this.address = address;
        this.tls = tls;
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
                send(ctx, reply.payload(), reply.sequenceId());
            } else if (step instanceof LoginStep.StartTls switchToTls) {
                startTls(ctx, switchToTls);
                return;
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

    private static void send(ChannelHandlerContext ctx, ByteBuf payload, int sequenceId) {
        ByteBuf out = ctx.alloc().buffer(Packets.HEADER_SIZE + payload.readableBytes());
        Packets.writePacket(out, sequenceId, payload);
        payload.release();
        ctx.writeAndFlush(out);
    }

    private void startTls(ChannelHandlerContext ctx, LoginStep.StartTls start) {
        if (loginBytes.isReadable()) {
            start.sslRequest().release();
            fail(ctx, new BackendException("backend '" + nodeName + "' sent more after its greeting; cannot start TLS"));
            return;
        }
        // Written (into the channel's outbound buffer, below every handler) before TLS is in place: in clear.
        send(ctx, start.sslRequest(), start.sequenceId());
        SslHandler ssl = tls.context().orElseThrow().newHandler(ctx.alloc(), address.host(), address.port());
        ctx.pipeline().addFirst("tls", ssl);
        ssl.handshakeFuture().addListener(f -> {
            if (!f.isSuccess()) {
                fail(ctx, new BackendException("TLS handshake with backend '" + nodeName + "' at " + address
                        + " failed: " + f.cause().getMessage() + (tls.verified() ? " (its certificate is verified "
                        + "against the node's tls-ca)" : ""), f.cause()));
                return;
            }
            if (!ctx.channel().isActive() || ready.isDone()) {
                return;
            }
            LoginStep next = login.onTlsReady();
            if (next instanceof LoginStep.Reply reply) {
                send(ctx, reply.payload(), reply.sequenceId());
            } else if (next instanceof LoginStep.Failure failure) {
                fail(ctx, failure.cause());
            }
        });
    }

    private void fail(ChannelHandlerContext ctx, BackendException cause) {
        ready.tryFailure(cause);
        ctx.close();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (connection != null) {
            connection.onReadComplete();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (connection != null) {
            connection.writabilityChanged();
        }
        ctx.fireChannelWritabilityChanged();
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
        if (cause instanceof NotYetConnectedException && !ctx.channel().isActive()) {
            // A read of a socket whose connect has not started: an epoll event of the socket that
            // held this descriptor before, delivered to this one (docs/ARCHITECTURE.md, "Stale
            // epoll events"). The read did nothing; the connect goes on.
            return;
        }
        // Some exceptions (a closed channel, in TLS) have no message: their name is better than "null".
        String what = cause.getMessage() != null ? cause.getMessage() : cause.toString();
        ready.tryFailure(new BackendException("backend '" + nodeName + "': " + what, cause));
        ctx.close();
    }
}
