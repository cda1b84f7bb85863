package dev.sluice.protocol.packet;

import io.netty.handler.codec.TooLongFrameException;

/**
 * A logical packet (all its 16 MB continuations joined) is larger than the decoder's limit.
 * The server answers with ERR 1153 (ER_NET_PACKET_TOO_LARGE) and closes the connection: the
 * rest of the stream cannot be trusted to be in sync any more.
 *
 * <p>It extends {@link TooLongFrameException} (a {@code DecoderException}) so that
 * {@code ByteToMessageDecoder} passes it to {@code exceptionCaught} as it is, not wrapped.
 */
public final class PacketTooLargeException extends TooLongFrameException {
    private static final long serialVersionUID = 1L;

    private final long size;
    private final long limit;

    public PacketTooLargeException(long size, long limit) {
        super("packet of at least " + size + " bytes exceeds the limit of " + limit + " bytes");
        this.size = size;
        this.limit = limit;
    }

    /** How large the packet was known to be when it was rejected (at least this much). */
    public long size() {
        return size;
    }

    public long limit() {
        return limit;
    }
}
