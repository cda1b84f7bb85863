package dev.sluice.server.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Netty's side of the admin API: turns an aggregated request into an {@link AdminApi} call and its
 * {@link AdminResponse} into HTTP. The request is released by {@link SimpleChannelInboundHandler}
 * as soon as this returns (its body is copied out first), and the response buffer is allocated only
 * once the answer is complete and handed straight to the write, which releases it whatever happens;
 * so no path through here can leak a buffer.
 */
@ChannelHandler.Sharable
final class AdminRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(AdminRequestHandler.class);

    private final AdminApi api;

    AdminRequestHandler(AdminApi api) {
        this.api = api;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (request.decoderResult().isFailure()) {
            // The connection's framing is unknown after a bad request line or header: answer and close.
            write(ctx, AdminResponse.error(AdminException.BAD_REQUEST, "malformed HTTP request: "
                    + request.decoderResult().cause().getMessage()), false);
            return;
        }
        // Everything is copied out of the request here: it is released when this method returns.
        api.handleAsync(request.method().name(), request.uri(),
                request.headers().get(HttpHeaderNames.AUTHORIZATION), request.headers().get(HttpHeaderNames.ORIGIN),
                request.headers().get(HttpHeaderNames.HOST), ByteBufUtil.getBytes(request.content()))
                .whenComplete((response, error) -> ctx.executor().execute(() -> write(ctx, response != null ? response
                        : AdminResponse.error(AdminResponse.INTERNAL_ERROR, "internal error: " + error), keepAlive)));
    }

    private static void write(ChannelHandlerContext ctx, AdminResponse r, boolean keepAlive) {
        ByteBuf content = ctx.alloc().buffer(r.body().length).writeBytes(r.body());
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()),
                content);
        if (r.contentType() != null) {
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        }
        // Live state: a cached DescribeDBProxy or dashboard would show a topology that is gone.
        res.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        res.headers().set("X-Content-Type-Options", "nosniff");
        for (Map.Entry<String, String> h : r.headers().entrySet()) {
            res.headers().set(h.getKey(), h.getValue());
        }
        HttpUtil.setContentLength(res, content.readableBytes());
        HttpUtil.setKeepAlive(res, keepAlive);
        var written = ctx.writeAndFlush(res);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A reset connection or a broken client; the server and other connections carry on.
        LOG.debug("admin connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
