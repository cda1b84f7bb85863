package dev.sluice.protocol.response;

import static dev.sluice.protocol.Capabilities.CLIENT_PROTOCOL_41;
import static dev.sluice.protocol.Capabilities.CLIENT_SESSION_TRACK;
import static dev.sluice.protocol.Capabilities.CLIENT_TRANSACTIONS;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The OK packet, layout chosen by the negotiated capabilities:
 *
 * <pre>
 * int&lt;1&gt;       0x00, or 0xFE when it ends a result set under CLIENT_DEPRECATE_EOF
 * int&lt;lenenc&gt;  affected rows
 * int&lt;lenenc&gt;  last insert id
 * int&lt;2&gt;       status flags                (PROTOCOL_41 or TRANSACTIONS)
 * int&lt;2&gt;       warnings                    (PROTOCOL_41)
 * with SESSION_TRACK:
 *   string&lt;lenenc&gt; info                   (absent when nothing follows)
 *   string&lt;lenenc&gt; session state changes  (only with SERVER_SESSION_STATE_CHANGED)
 * without SESSION_TRACK:
 *   string&lt;lenenc&gt; info                   (absent when empty)
 * </pre>
 *
 * <p>Sharp edge: the protocol documents the info without SESSION_TRACK as {@code string<EOF>},
 * but MariaDB (golden capture {@code ok-info-no-session-track.hex}) and MySQL both send it
 * length-encoded. This decoder accepts both: a length prefix that spans exactly the rest of
 * the packet is taken as one, anything else is read as {@code string<EOF>}.
 *
 * <p>The static accessors ({@link #statusFlagsOf}, {@link #sessionTrackedVariable}) read a
 * payload in place, for the forwarding path.
 *
 * @param affectedRows affected rows (unsigned)
 * @param lastInsertId last insert id (unsigned)
 * @param statusFlags {@link ServerStatus} flags
 * @param warnings warning count
 * @param info human-readable info, often empty
 * @param sessionStateChanges tracked session state changes, in order
 * @see <a href="https://mariadb.com/kb/en/ok_packet/">MariaDB: OK_Packet</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_basic_ok_packet.html">MySQL: OK_Packet</a>
 */
public record OkPacket(long affectedRows, long lastInsertId, int statusFlags, int warnings, String info,
        List<SessionStateChange> sessionStateChanges) {

    public static final int HEADER = 0x00;
    /** Header of an OK that ends a result set under CLIENT_DEPRECATE_EOF. */
    public static final int EOF_HEADER = 0xFE;

    public OkPacket {
        Objects.requireNonNull(info, "info");
        sessionStateChanges = List.copyOf(sessionStateChanges);
    }

    /** A plain OK with the given status flags. */
    public static OkPacket of(int statusFlags) {
        return new OkPacket(0, 0, statusFlags, 0, "", List.of());
    }

    /** True when the payload starts with 0x00 (only meaningful as the first packet of a response). */
    public static boolean isOk(ByteBuf payload) {
        return payload.isReadable() && payload.getUnsignedByte(payload.readerIndex()) == HEADER;
    }

    /** Writes the payload with the 0x00 header, or 0xFE when {@code eofHeader}. */
    public void encodePayload(ByteBuf out, long caps, boolean eofHeader) {
        out.writeByte(eofHeader ? EOF_HEADER : HEADER);
        LengthEncoded.writeInteger(out, affectedRows);
        LengthEncoded.writeInteger(out, lastInsertId);
        boolean tracking = Capabilities.has(caps, CLIENT_SESSION_TRACK);
        int status = statusFlags;
        if (tracking && !sessionStateChanges.isEmpty()) {
            status |= ServerStatus.SESSION_STATE_CHANGED;
        }
        if (Capabilities.has(caps, CLIENT_PROTOCOL_41)) {
            out.writeShortLE(status).writeShortLE(warnings);
        } else if (Capabilities.has(caps, CLIENT_TRANSACTIONS)) {
            out.writeShortLE(status);
        }
        if (!tracking) {
            if (!info.isEmpty()) {
                LengthEncoded.writeString(out, info);
            }
            return;
        }
        if (!info.isEmpty() || !sessionStateChanges.isEmpty()) {
            LengthEncoded.writeString(out, info);
        }
        if (!sessionStateChanges.isEmpty()) {
            ByteBuf block = Unpooled.buffer();
            try {
                for (SessionStateChange change : sessionStateChanges) {
                    SessionStateChange.encode(block, change);
                }
                LengthEncoded.writeBytes(out, block);
            } finally {
                block.release();
            }
        }
    }

    /** Writes a whole packet (header and payload, 0x00 form); returns the next sequence id. */
    public int encode(ByteBuf out, int sequenceId, long caps) {
        return encode(out, sequenceId, caps, false);
    }

    /** Writes a whole packet; {@code eofHeader} for the 0xFE form. Returns the next sequence id. */
    public int encode(ByteBuf out, int sequenceId, long caps, boolean eofHeader) {
        int start = Packets.beginPacket(out);
        encodePayload(out, caps, eofHeader);
        return Packets.endPacket(out, start, sequenceId);
    }

    /** Reads an OK payload (either header) laid out for the capabilities {@code caps}. */
    public static OkPacket decode(ByteBuf in, long caps) {
        int header = Fields.readInt1(in, "OK header");
        if (header != HEADER && header != EOF_HEADER) {
            throw new MalformedPacketException(String.format("OK packet: header 0x%02x", header));
        }
        long affected = LengthEncoded.readInteger(in);
        long insertId = LengthEncoded.readInteger(in);
        int status = 0;
        int warnings = 0;
        if (Capabilities.has(caps, CLIENT_PROTOCOL_41)) {
            status = Fields.readInt2(in, "status flags");
            warnings = Fields.readInt2(in, "warnings");
        } else if (Capabilities.has(caps, CLIENT_TRANSACTIONS)) {
            status = Fields.readInt2(in, "status flags");
        }
        if (!Capabilities.has(caps, CLIENT_SESSION_TRACK)) {
            return new OkPacket(affected, insertId, status, warnings, readInfoWithoutTracking(in), List.of());
        }
        String info = in.isReadable() ? LengthEncoded.readString(in, "info") : "";
        List<SessionStateChange> changes = new ArrayList<>();
        if (ServerStatus.has(status, ServerStatus.SESSION_STATE_CHANGED) && in.isReadable()) {
            in.readerIndex(SessionTrackScanner.blockLengthIndex(in, in.readerIndex(), in.writerIndex()));
            ByteBuf block = LengthEncoded.readSlice(in, "session state changes");
            while (block.isReadable()) {
                SessionStateChange.decode(block, changes);
            }
        }
        return new OkPacket(affected, insertId, status, warnings, info, changes);
    }

    private static String readInfoWithoutTracking(ByteBuf in) {
        int index = in.readerIndex();
        int prefix = LengthEncoded.prefixSize(in.isReadable() ? in.getUnsignedByte(index) : LengthEncoded.NULL_MARKER);
        if (prefix > 0 && prefix <= in.readableBytes()
                && LengthEncoded.getIntegerAt(in, index) == in.readableBytes() - prefix) {
            return LengthEncoded.readString(in, "info");
        }
        return Fields.readRestString(in, StandardCharsets.UTF_8);
    }

    /**
     * The status flags of an OK payload (either header), read in place without allocating;
     * 0 when the capabilities carry no status.
     */
    public static int statusFlagsOf(ByteBuf payload, long caps) {
        int index = statusIndex(payload, caps);
        return index < 0 ? 0 : payload.getUnsignedShortLE(index);
    }

    /** The warning count of an OK payload (either header), read in place; 0 when the layout has none. */
    public static int warningsOf(ByteBuf payload, long caps) {
        if (!Capabilities.has(caps, CLIENT_PROTOCOL_41)) {
            return 0;
        }
        int index = statusIndex(payload, caps) + 2;
        if (payload.writerIndex() - index < 2) {
            throw new MalformedPacketException("OK packet: warning count missing");
        }
        return payload.getUnsignedShortLE(index);
    }

    /**
     * The value of a tracked system variable (e.g. MariaDB's {@code last_gtid}) in an OK
     * payload, read in place; empty when the OK does not report it. Malformed session data
     * throws {@link MalformedPacketException}.
     */
    public static java.util.Optional<String> sessionTrackedVariable(ByteBuf payload, long caps, String name) {
        return SessionTrackScanner.findSystemVariable(payload, caps, name);
    }

    /**
     * The OK packet at {@code packetIndex} of {@code buf} (header included), laid out for a client
     * that did not negotiate CLIENT_SESSION_TRACK although the server's connection did: the same
     * packet without its session state changes and without the SERVER_SESSION_STATE_CHANGED flag,
     * the info kept (length-encoded, and only when not empty, as the server sends it to such a
     * client). The byte a client reads is then the one the server would have sent it directly.
     * Protocol 4.1 layout; returns a new buffer, {@code buf} is left as it is.
     */
    public static ByteBuf withoutSessionState(ByteBuf buf, int packetIndex, ByteBufAllocator alloc) {
        int payload = packetIndex + Packets.HEADER_SIZE;
        int end = payload + Packets.payloadLength(buf, packetIndex);
        int status = statusIndex(buf.slice(payload, end - payload), CLIENT_PROTOCOL_41) + payload;
        int afterWarnings = status + 4;
        if (afterWarnings > end) {
            throw new MalformedPacketException("OK packet: warning count missing");
        }
        int infoLength = 0;
        int infoPrefix = 0;
        if (afterWarnings < end) {
            infoPrefix = LengthEncoded.encodedSizeAt(buf, afterWarnings);
            long length = LengthEncoded.getIntegerAt(buf, afterWarnings);
            if (length < 0 || afterWarnings + infoPrefix + length > end) {
                throw new MalformedPacketException("OK packet: info longer than the packet");
            }
            infoLength = (int) length;
        }
        int kept = afterWarnings - payload + (infoLength > 0 ? infoPrefix + infoLength : 0);
        ByteBuf out = alloc.buffer(Packets.HEADER_SIZE + kept);
        out.writeMediumLE(kept).writeByte(Packets.sequenceId(buf, packetIndex));
        out.writeBytes(buf, payload, status - payload);
        out.writeShortLE(buf.getUnsignedShortLE(status) & ~ServerStatus.SESSION_STATE_CHANGED);
        out.writeBytes(buf, status + 2, 2);
        if (infoLength > 0) {
            out.writeBytes(buf, afterWarnings, infoPrefix + infoLength);
        }
        return out;
    }

    /** {@link #withoutSessionState(ByteBuf, int, ByteBufAllocator)} of a payload alone (no packet header). */
    public static byte[] payloadWithoutSessionState(byte[] payload) {
        ByteBuf packet = Unpooled.buffer(Packets.HEADER_SIZE + payload.length);
        packet.writeMediumLE(payload.length).writeByte(0).writeBytes(payload);
        ByteBuf out = withoutSessionState(packet, 0, io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
        try {
            byte[] stripped = new byte[out.readableBytes() - Packets.HEADER_SIZE];
            out.getBytes(Packets.HEADER_SIZE, stripped);
            return stripped;
        } finally {
            out.release();
        }
    }

    /** Offset of the status flags in {@code payload}, or -1 when the layout has none. */
    static int statusIndex(ByteBuf payload, long caps) {
        if (!Capabilities.has(caps, CLIENT_PROTOCOL_41) && !Capabilities.has(caps, CLIENT_TRANSACTIONS)) {
            return -1;
        }
        int index = payload.readerIndex() + 1;
        index += LengthEncoded.encodedSizeAt(payload, index);
        index += LengthEncoded.encodedSizeAt(payload, index);
        if (payload.writerIndex() - index < 2) {
            throw new MalformedPacketException("OK packet: status flags missing");
        }
        return index;
    }
}
