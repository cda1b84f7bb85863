package dev.sluice.server.frontend;

import dev.sluice.server.tls.ClientTls;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts TLS under a client's login after its SSLRequest: an {@link SslHandler} goes in front of the
 * frame decoder, and the login goes on inside TLS (the client's HandshakeResponse41 follows with
 * the next sequence id).
 *
 * <p>The sharp edge: the client starts its TLS handshake right after the SSLRequest, so its
 * ClientHello may have been read together with it and sit, undecoded, in the frame decoder (which
 * stops after an SSLRequest for that reason). Those bytes are taken out and fed through the new
 * TLS handler — later, from the event loop, with reading paused meanwhile, so nothing from the
 * socket can overtake them and no handler is entered while it is still running. "Later" is also
 * when the certificate is ready, should Sluice still be making its self-signed one.
 */
final class ClientTlsStart {
    private static final Logger LOG = LoggerFactory.getLogger(ClientTlsStart.class);

    private ClientTlsStart() {
    }

    static void start(ChannelHandlerContext ctx, ClientTls tls) {
        ChannelPipeline pipeline = ctx.pipeline();
        ClientFrameDecoder frames = pipeline.get(ClientFrameDecoder.class);
        ctx.channel().config().setAutoRead(false);
        ByteBuf early = frames.takeBuffered();
        tls.ready().whenComplete((material, error) -> ctx.executor().execute(() -> {
            if (!ctx.channel().isActive() || error != null) {
                early.release();
                if (error != null) {
                    LOG.debug("client {}: TLS requested but unavailable: {}", ctx.channel().remoteAddress(),
                            error.getMessage());
                }
                ctx.close();
                return;
            }
            pipeline.addBefore(pipeline.context(frames).name(), "tls", material.newHandler(ctx.alloc()));
            if (early.isReadable()) {
                pipeline.fireChannelRead(early);
                pipeline.fireChannelReadComplete();
            } else {
                early.release();
            }
            ctx.channel().config().setAutoRead(true);
        }));
    }
}
