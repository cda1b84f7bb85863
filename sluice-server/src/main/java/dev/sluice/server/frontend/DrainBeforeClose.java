package dev.sluice.server.frontend;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import java.util.concurrent.TimeUnit;

/**
 * Closes a client connection refused in the middle of a packet without resetting it. A client
 * that sends a packet over {@code limits.max-packet-size} is still writing it when Sluice has read
 * its header and answered ERR 1153; closing the socket with the rest unread would make the kernel
 * send a reset, and the client would see "broken pipe" or "connection reset" instead of the error.
 * So once {@link #drainOnClose()} was called, a close first flushes what was written, shuts the
 * output down (the client reads the ERR, then the end of the stream), goes on reading and dropping
 * what the client still sends ({@link ClientFrameDecoder} discards it), and closes for good when
 * the client closes or after {@link #GRACE_MS}.
 */
final class DrainBeforeClose extends ChannelDuplexHandler {
    /** How long a refused client may go on sending before the connection is closed anyway. */
    static final long GRACE_MS = 2_000;

    private boolean drainOnClose;
    private boolean draining;

    /** The next close drains first: the client is in the middle of a packet. */
    void drainOnClose() {
        drainOnClose = true;
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (!drainOnClose || draining || !(ctx.channel() instanceof DuplexChannel duplex) || !ctx.channel().isActive()) {
            ctx.close(promise);
            return;
        }
        draining = true;
        ctx.channel().config().setAutoRead(true);
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> duplex.shutdownOutput()
                .addListener(shut -> ctx.executor().schedule(() -> {
                    ctx.close(promise);
                }, GRACE_MS, TimeUnit.MILLISECONDS)));
    }
}
