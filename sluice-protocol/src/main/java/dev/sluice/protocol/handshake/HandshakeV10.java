package dev.sluice.protocol.handshake;

import static dev.sluice.protocol.Capabilities.CLIENT_MYSQL;
import static dev.sluice.protocol.Capabilities.CLIENT_PLUGIN_AUTH;
import static dev.sluice.protocol.Capabilities.CLIENT_SECURE_CONNECTION;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The server greeting (Initial Handshake Packet, protocol version 10).
 *
 * <pre>
 * int&lt;1&gt;     protocol version (10)
 * string&lt;NUL&gt; server version          MariaDB prefixes "5.5.5-"; kept as it is
 * int&lt;4&gt;     connection id
 * string[8]  scramble, part 1
 * int&lt;1&gt;     filler (0)
 * int&lt;2&gt;     capabilities, bits 0..15
 * int&lt;1&gt;     default collation
 * int&lt;2&gt;     status flags
 * int&lt;2&gt;     capabilities, bits 16..31
 * int&lt;1&gt;     auth plugin data length (without CLIENT_PLUGIN_AUTH: 0, and ignored)
 * string[6]  filler
 * int&lt;4&gt;     MariaDB extended capabilities when CLIENT_MYSQL is clear, else filler
 * string[n]  scramble, part 2, n = max(13, data length - 8), NUL-terminated (CLIENT_SECURE_CONNECTION)
 * string&lt;NUL&gt; auth plugin name (CLIENT_PLUGIN_AUTH)
 * </pre>
 *
 * @param serverVersion version string, e.g. {@code 5.5.5-10.11.6-MariaDB}
 * @param connectionId the server's thread id (unsigned 32 bits)
 * @param scramble the seed for authentication, normally 20 bytes (parts 1 and 2, no NUL)
 * @param capabilities server capabilities, MariaDB extended ones in the upper 32 bits
 * @param collation default collation id (low byte only on the wire)
 * @param statusFlags server status flags
 * @param authPluginName default authentication plugin, e.g. {@code mysql_native_password}
 * @see <a href="https://mariadb.com/kb/en/connection/#initial-handshake-packet">MariaDB: initial handshake packet</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase_packets_protocol_handshake_v10.html">MySQL:
 *     Protocol::HandshakeV10</a>
 */
public record HandshakeV10(String serverVersion, long connectionId, byte[] scramble, long capabilities,
        int collation, int statusFlags, String authPluginName) {

    public static final int PROTOCOL_VERSION = 10;
    private static final int SCRAMBLE_PART1 = 8;
    private static final int MIN_SCRAMBLE_PART2_FIELD = 13;
    private static final int RESERVED_FILLER = 6;
    private static final int EXTENDED_CAPABILITIES_SIZE = 4;

    public HandshakeV10 {
        Objects.requireNonNull(serverVersion, "serverVersion");
        Objects.requireNonNull(authPluginName, "authPluginName");
        if (scramble.length < SCRAMBLE_PART1) {
            throw new IllegalArgumentException("scramble must have at least 8 bytes: " + scramble.length);
        }
        scramble = scramble.clone();
    }

    @Override
    public byte[] scramble() {
        return scramble.clone();
    }

    /** Writes the payload (no packet header). */
    public void encode(ByteBuf out) {
        out.writeByte(PROTOCOL_VERSION);
        Fields.writeNulString(out, serverVersion, StandardCharsets.UTF_8);
        out.writeIntLE((int) connectionId);
        out.writeBytes(scramble, 0, SCRAMBLE_PART1);
        out.writeByte(0);
        out.writeShortLE((int) capabilities);
        out.writeByte(collation);
        out.writeShortLE(statusFlags);
        out.writeShortLE((int) (capabilities >>> 16));
        out.writeByte(Capabilities.has(capabilities, CLIENT_PLUGIN_AUTH) ? scramble.length + 1 : 0);
        out.writeZero(RESERVED_FILLER);
        out.writeIntLE(Capabilities.isMariaDb(capabilities) ? Capabilities.extendedBits(capabilities) : 0);
        if (Capabilities.has(capabilities, CLIENT_SECURE_CONNECTION)) {
            int part2 = scramble.length - SCRAMBLE_PART1;
            out.writeBytes(scramble, SCRAMBLE_PART1, part2);
            out.writeZero(Math.max(MIN_SCRAMBLE_PART2_FIELD - part2, 1));
        }
        if (Capabilities.has(capabilities, CLIENT_PLUGIN_AUTH)) {
            Fields.writeNulString(out, authPluginName, StandardCharsets.UTF_8);
        }
    }

    /**
     * Reads a greeting payload. Sharp edge: a server that refuses the connection (too many
     * connections, host blocked) sends an ERR packet instead — check for 0xFF first.
     */
    public static HandshakeV10 decode(ByteBuf in) {
        int version = Fields.readInt1(in, "protocol version");
        if (version != PROTOCOL_VERSION) {
            throw new MalformedPacketException("unsupported handshake protocol version " + version);
        }
        String serverVersion = Fields.readNulString(in, StandardCharsets.UTF_8, "server version");
        long connectionId = Fields.readInt4(in, "connection id");
        byte[] part1 = Fields.readFixed(in, SCRAMBLE_PART1, "scramble part 1");
        Fields.skip(in, 1, "filler");
        long lower = Fields.readInt2(in, "capabilities");
        int collation = Fields.readInt1(in, "collation");
        int status = Fields.readInt2(in, "status flags");
        long upper = Fields.readInt2(in, "capabilities (upper)");
        int authDataLength = Fields.readInt1(in, "auth plugin data length");
        Fields.skip(in, RESERVED_FILLER, "filler");
        int extended = (int) Fields.readInt4(in, "extended capabilities");
        long caps = lower | (upper << 16);
        if ((caps & CLIENT_MYSQL) == 0) {
            caps = Capabilities.combine(caps, extended);
        }
        if (!Capabilities.has(caps, CLIENT_PLUGIN_AUTH)) {
            // Without PLUGIN_AUTH the length byte is a filler (0): the scramble has its default length.
            authDataLength = 0;
        }
        byte[] scramble = part1;
        if (Capabilities.has(caps, CLIENT_SECURE_CONNECTION)) {
            int field = Math.max(MIN_SCRAMBLE_PART2_FIELD, authDataLength - SCRAMBLE_PART1);
            byte[] part2 = Fields.readFixed(in, field, "scramble part 2");
            // The field ends with a NUL that is not part of the scramble.
            int length = authDataLength > SCRAMBLE_PART1 ? authDataLength - SCRAMBLE_PART1 - 1 : field - 1;
            scramble = Arrays.copyOf(part1, SCRAMBLE_PART1 + length);
            System.arraycopy(part2, 0, scramble, SCRAMBLE_PART1, length);
        }
        String plugin = "";
        if (Capabilities.has(caps, CLIENT_PLUGIN_AUTH) && in.isReadable()) {
            // Some old servers (MySQL bug #59453) omit the final NUL.
            plugin = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0) < 0
                    ? Fields.readRestString(in, StandardCharsets.UTF_8)
                    : Fields.readNulString(in, StandardCharsets.UTF_8, "auth plugin name");
        }
        return new HandshakeV10(serverVersion, connectionId, scramble, caps, collation, status, plugin);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HandshakeV10 h && serverVersion.equals(h.serverVersion)
                && connectionId == h.connectionId && Arrays.equals(scramble, h.scramble)
                && capabilities == h.capabilities && collation == h.collation
                && statusFlags == h.statusFlags && authPluginName.equals(h.authPluginName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(serverVersion, connectionId, Arrays.hashCode(scramble), capabilities,
                collation, statusFlags, authPluginName);
    }

    @Override
    public String toString() {
        return "HandshakeV10[serverVersion=" + serverVersion + ", connectionId=" + connectionId
                + ", capabilities=" + Capabilities.describe(capabilities) + ", collation=" + collation
                + ", statusFlags=" + statusFlags + ", authPluginName=" + authPluginName + "]";
    }
}
