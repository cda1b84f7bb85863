package dev.sluice.protocol.response;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;

/**
 * The EOF packet: 0xFE, {@code int<2>} warnings, {@code int<2>} status (PROTOCOL_41).
 *
 * <p>Sharp edges: a text row can also start with 0xFE (a length-encoded string of 16 MB or
 * more) — an EOF is told apart by its length, under {@value #MAX_LENGTH} bytes. Under
 * CLIENT_DEPRECATE_EOF there are no EOF packets: a result set ends with an OK packet that
 * has the 0xFE header instead ({@link #isResultSetEnd}).
 *
 * @param warnings warning count
 * @param statusFlags server status flags
 * @see <a href="https://mariadb.com/kb/en/eof_packet/">MariaDB: EOF_Packet</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_basic_eof_packet.html">MySQL: EOF_Packet</a>
 */
public record EofPacket(int warnings, int statusFlags) {
    public static final int HEADER = 0xFE;
    /** An EOF payload is shorter than this (a 0xFE row is at least this long). */
    public static final int MAX_LENGTH = 9;

    /** True for an EOF packet proper (0xFE and short). */
    public static boolean isEof(ByteBuf payload) {
        return payload.isReadable() && payload.readableBytes() < MAX_LENGTH
                && payload.getUnsignedByte(payload.readerIndex()) == HEADER;
    }

    /**
     * True for the packet that ends the rows of a result set: an EOF, or under
     * CLIENT_DEPRECATE_EOF an OK with the 0xFE header. The latter can be long (it may carry
     * session state), so it is told from a 0xFE row by the row's size: a row starting with an
     * 8-byte length fills a whole 0xFFFFFF frame. Pass the first frame's payload.
     */
    public static boolean isResultSetEnd(ByteBuf payload, long caps) {
        if (!payload.isReadable() || payload.getUnsignedByte(payload.readerIndex()) != HEADER) {
            return false;
        }
        if (Capabilities.has(caps, Capabilities.CLIENT_DEPRECATE_EOF)) {
            return payload.readableBytes() < Packets.MAX_PAYLOAD;
        }
        return payload.readableBytes() < MAX_LENGTH;
    }

    /** Status flags of an EOF payload, read in place; 0 in the pre-4.1 form. */
    public static int statusFlagsOf(ByteBuf payload) {
        return payload.readableBytes() >= 5 ? payload.getUnsignedShortLE(payload.readerIndex() + 3) : 0;
    }

    public void encodePayload(ByteBuf out, long caps) {
        out.writeByte(HEADER);
        if (Capabilities.has(caps, Capabilities.CLIENT_PROTOCOL_41)) {
            out.writeShortLE(warnings).writeShortLE(statusFlags);
        }
    }

    /** Writes a whole packet; returns the next sequence id. */
    public int encode(ByteBuf out, int sequenceId, long caps) {
        int start = Packets.beginPacket(out);
        encodePayload(out, caps);
        return Packets.endPacket(out, start, sequenceId);
    }

    public static EofPacket decode(ByteBuf in, long caps) {
        int header = Fields.readInt1(in, "EOF header");
        if (header != HEADER) {
            throw new MalformedPacketException(String.format("EOF packet: header 0x%02x", header));
        }
        if (!Capabilities.has(caps, Capabilities.CLIENT_PROTOCOL_41)) {
            return new EofPacket(0, 0);
        }
        int warnings = Fields.readInt2(in, "warnings");
        return new EofPacket(warnings, Fields.readInt2(in, "status flags"));
    }
}
