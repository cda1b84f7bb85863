package dev.sluice.protocol.packet;

import io.netty.buffer.ByteBuf;

/**
 * Packet framing: every packet is a 4-byte header — {@code int<3>} payload length and
 * {@code int<1>} sequence id — followed by the payload.
 *
 * <p>Sharp edge: a payload of 0xFFFFFF bytes or more is split into frames of exactly
 * 0xFFFFFF bytes plus a last frame of fewer; when the payload is an exact multiple of
 * 0xFFFFFF, the last frame is <em>empty</em> (it is what tells the reader that the packet has
 * ended). Every frame takes the next sequence id, wrapping from 255 to 0.
 *
 * @see <a href="https://mariadb.com/kb/en/0-packet/">MariaDB: packet, packet splitting</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_basic_packets.html">MySQL:
 *     MySQL packets, sending more than 16 MB</a>
 */
public final class Packets {
    /** Largest payload of one frame; a frame this long is continued by the next one. */
    public static final int MAX_PAYLOAD = 0xFF_FFFF;
    public static final int HEADER_SIZE = 4;
    /** Sequence ids are one byte and wrap around. */
    public static final int SEQUENCE_MASK = 0xFF;

    private Packets() {}

    /** Payload length from the header at {@code index}. */
    public static int payloadLength(ByteBuf buf, int index) {
        return buf.getUnsignedMediumLE(index);
    }

    /** Sequence id from the header at {@code index}. */
    public static int sequenceId(ByteBuf buf, int index) {
        return buf.getUnsignedByte(index + 3);
    }

    public static void writeHeader(ByteBuf out, int payloadLength, int sequenceId) {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD) {
            throw new IllegalArgumentException("frame payload length " + payloadLength);
        }
        out.writeMediumLE(payloadLength).writeByte(sequenceId & SEQUENCE_MASK);
    }

    /** Number of frames a payload of {@code payloadLength} bytes needs (the trailing empty one included). */
    public static long frameCount(long payloadLength) {
        return payloadLength / MAX_PAYLOAD + 1;
    }

    /** Bytes on the wire for a payload of {@code payloadLength} bytes, headers included. */
    public static long framedSize(long payloadLength) {
        return payloadLength + HEADER_SIZE * frameCount(payloadLength);
    }

    /**
     * Writes the readable bytes of {@code payload} (consuming them) as one logical packet,
     * split into frames as needed, the first with sequence id {@code sequenceId}.
     *
     * @return the sequence id that follows the last frame written
     */
    public static int writePacket(ByteBuf out, int sequenceId, ByteBuf payload) {
        int seq = sequenceId;
        while (true) {
            int chunk = Math.min(payload.readableBytes(), MAX_PAYLOAD);
            writeHeader(out, chunk, seq);
            out.writeBytes(payload, chunk);
            seq = (seq + 1) & SEQUENCE_MASK;
            if (chunk < MAX_PAYLOAD) {
                return seq;
            }
        }
    }

    /** Like {@link #writePacket(ByteBuf, int, ByteBuf)} for an array. */
    public static int writePacket(ByteBuf out, int sequenceId, byte[] payload) {
        int seq = sequenceId;
        int offset = 0;
        while (true) {
            int chunk = Math.min(payload.length - offset, MAX_PAYLOAD);
            writeHeader(out, chunk, seq);
            out.writeBytes(payload, offset, chunk);
            offset += chunk;
            seq = (seq + 1) & SEQUENCE_MASK;
            if (chunk < MAX_PAYLOAD) {
                return seq;
            }
        }
    }

    /**
     * Reserves room for a header so that a payload can be written straight into {@code out};
     * finish with {@link #endPacket}.
     *
     * @return the index of the header, to pass to {@link #endPacket}
     */
    public static int beginPacket(ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        return start;
    }

    /**
     * Fills in the header reserved by {@link #beginPacket}. A payload of 16 MB or more is
     * re-framed (copied once) into several frames.
     *
     * @return the sequence id that follows the last frame written
     */
    public static int endPacket(ByteBuf out, int start, int sequenceId) {
        int length = out.writerIndex() - start - HEADER_SIZE;
        if (length < MAX_PAYLOAD) {
            out.setMediumLE(start, length);
            out.setByte(start + 3, sequenceId & SEQUENCE_MASK);
            return (sequenceId + 1) & SEQUENCE_MASK;
        }
        ByteBuf payload = out.alloc().buffer(length);
        try {
            payload.writeBytes(out, start + HEADER_SIZE, length);
            out.writerIndex(start);
            return writePacket(out, sequenceId, payload);
        } finally {
            payload.release();
        }
    }
}
