package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds a logged-in client's packets and socket events to its session, and closes a client that has
 * been silent for {@code limits.idle-timeout} (the server's {@code wait_timeout}): idle means
 * nothing read from it and nothing flushed to it for that long, while none of its commands is
 * running — a client waiting for a long query's result is never cut.
 */
final class ClientSessionHandler extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSessionHandler.class);
    private final ClientEvents session;
    private final long connectionId;
    private final long idleTimeoutNanos;
    private long lastActivity;
    private ScheduledFuture<?> idleCheck;

    /** @param idleTimeout {@code limits.idle-timeout}; zero for none */
    ClientSessionHandler(ClientEvents session, long connectionId, Duration idleTimeout) {
        this.session = session;
        this.connectionId = connectionId;
        this.idleTimeoutNanos = idleTimeout.toNanos();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        lastActivity = System.nanoTime();
        if (idleTimeoutNanos > 0) {
            scheduleIdleCheck(ctx, idleTimeoutNanos);
        }
    }

    private void scheduleIdleCheck(ChannelHandlerContext ctx, long delayNanos) {
        idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkIdle(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive() || session.isClosed()) {
            return;
        }
        long idle = System.nanoTime() - lastActivity;
        if (idle < idleTimeoutNanos) {
            scheduleIdleCheck(ctx, idleTimeoutNanos - idle);
            return;
        }
        if (session.backendAnswering()) {
            scheduleIdleCheck(ctx, idleTimeoutNanos);
            return;
        }
        LOG.debug("session {}: closed after {} s without a command (limits.idle-timeout)", connectionId,
                TimeUnit.NANOSECONDS.toSeconds(idle));
        session.close();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ClientFrameDecoder.OversizedPacket big) {
            session.refuse(big.sequenceId() + 1, ErrorCodes.ER_NET_PACKET_TOO_LARGE, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "Got a packet bigger than 'max_allowed_packet' bytes (" + big.size() + " > " + big.limit()
                            + "); raise limits.max-packet-size in Sluice's configuration if this is intended");
            return;
        }
        session.frame((ByteBuf) msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastActivity = System.nanoTime();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        lastActivity = System.nanoTime();
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            session.clientWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (idleCheck != null) {
            idleCheck.cancel(false);
        }
        session.clientClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("session {}: closed after an error", connectionId, cause);
        session.close();
    }
}
