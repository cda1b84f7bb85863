package dev.sluice.protocol.handshake;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;

/**
 * The short handshake response a client sends to ask for TLS: the first 32 bytes of a
 * {@link HandshakeResponse41} with {@link Capabilities#CLIENT_SSL} set. The full response
 * follows, encrypted, with the next sequence id.
 *
 * @see <a href="https://mariadb.com/kb/en/connection/#sslrequest-packet">MariaDB: SSLRequest packet</a>
 */
public record SslRequest(long capabilities, long maxPacketSize, int collation) {

    /** True when {@code payload} is an SSL request rather than a full handshake response. */
    public static boolean isSslRequest(ByteBuf payload) {
        return payload.readableBytes() == HandshakeResponse41.FIXED_PART_SIZE
                && Capabilities.has(payload.getUnsignedIntLE(payload.readerIndex()), Capabilities.CLIENT_SSL);
    }

    public void encode(ByteBuf out) {
        HandshakeResponse41.writeFixedPart(out, capabilities | Capabilities.CLIENT_SSL, maxPacketSize, collation);
    }

    public static SslRequest decode(ByteBuf in) {
        if (!isSslRequest(in)) {
            throw new MalformedPacketException("not an SSL request: " + in.readableBytes() + " bytes");
        }
        long lower = Fields.readInt4(in, "capabilities");
        long maxPacketSize = Fields.readInt4(in, "max packet size");
        int collation = Fields.readInt1(in, "collation");
        Fields.skip(in, 19, "filler");
        int extended = (int) Fields.readInt4(in, "extended capabilities");
        long caps = Capabilities.isMariaDb(lower) ? Capabilities.combine(lower, extended) : lower;
        return new SslRequest(caps, maxPacketSize, collation);
    }
}
