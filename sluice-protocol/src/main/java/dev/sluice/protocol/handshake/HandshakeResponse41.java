package dev.sluice.protocol.handshake;

import static dev.sluice.protocol.Capabilities.CLIENT_CONNECT_ATTRS;
import static dev.sluice.protocol.Capabilities.CLIENT_CONNECT_WITH_DB;
import static dev.sluice.protocol.Capabilities.CLIENT_PLUGIN_AUTH;
import static dev.sluice.protocol.Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
import static dev.sluice.protocol.Capabilities.CLIENT_PROTOCOL_41;
import static dev.sluice.protocol.Capabilities.CLIENT_SECURE_CONNECTION;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The client's login packet (Handshake Response 41).
 *
 * <pre>
 * int&lt;4&gt;     client capabilities, bits 0..31
 * int&lt;4&gt;     max packet size
 * int&lt;1&gt;     collation
 * string[19] filler
 * int&lt;4&gt;     MariaDB extended capabilities when CLIENT_MYSQL is clear, else filler
 *            (an SSL request ends here: 32 bytes)
 * string&lt;NUL&gt; user name
 * auth response: string&lt;lenenc&gt; (PLUGIN_AUTH_LENENC_CLIENT_DATA), int&lt;1&gt; length + bytes
 *            (SECURE_CONNECTION) or string&lt;NUL&gt;
 * string&lt;NUL&gt; database (CONNECT_WITH_DB)
 * string&lt;NUL&gt; auth plugin name (PLUGIN_AUTH)
 * int&lt;lenenc&gt; attributes length, then lenenc key/value pairs (CONNECT_ATTRS)
 * </pre>
 *
 * <p>Sharp edge: servers accept a packet that ends before an optional field even though its
 * capability bit is set (several drivers do this with CONNECT_WITH_DB); such a field decodes
 * as absent. A field that starts but is cut off is malformed.
 *
 * @param capabilities client capabilities, MariaDB extended ones in the upper 32 bits
 * @param maxPacketSize the largest packet the client wants to receive
 * @param collation the connection collation id
 * @param username user name
 * @param authResponse the answer to the server's scramble (empty for an empty password)
 * @param database initial default database
 * @param authPluginName plugin the client used to compute {@code authResponse}
 * @param connectAttributes connection attributes in the order sent (unmodifiable)
 * @see <a href="https://mariadb.com/kb/en/connection/#handshake-response-packet">MariaDB: handshake response packet</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase_packets_protocol_handshake_response.html">MySQL:
 *     Protocol::HandshakeResponse41</a>
 */
public record HandshakeResponse41(long capabilities, long maxPacketSize, int collation, String username,
        byte[] authResponse, Optional<String> database, Optional<String> authPluginName,
        Map<String, String> connectAttributes) {

    /** Bytes before the user name; also the whole length of an SSL request. */
    public static final int FIXED_PART_SIZE = 32;
    private static final int FILLER = 19;
    private static final int MAX_SHORT_AUTH_RESPONSE = 0xFF;

    public HandshakeResponse41 {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(authPluginName, "authPluginName");
        authResponse = authResponse.clone();
        connectAttributes = Collections.unmodifiableMap(new LinkedHashMap<>(connectAttributes));
    }

    @Override
    public byte[] authResponse() {
        return authResponse.clone();
    }

    /** MariaDB's extended capabilities as sent (the upper 32 bits). */
    public int mariaDbExtendedCapabilities() {
        return Capabilities.extendedBits(capabilities);
    }

    /** Writes the payload (no packet header), laid out as {@code capabilities} says. */
    public void encode(ByteBuf out) {
        writeFixedPart(out, capabilities, maxPacketSize, collation);
        Fields.writeNulString(out, username, StandardCharsets.UTF_8);
        if (Capabilities.has(capabilities, CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)) {
            LengthEncoded.writeBytes(out, authResponse);
        } else if (Capabilities.has(capabilities, CLIENT_SECURE_CONNECTION)) {
            if (authResponse.length > MAX_SHORT_AUTH_RESPONSE) {
                throw new IllegalArgumentException("auth response of " + authResponse.length
                        + " bytes needs CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA");
            }
            out.writeByte(authResponse.length).writeBytes(authResponse);
        } else {
            Fields.writeNulBytes(out, authResponse);
        }
        // A login may end before an optional field (see above): fields are written up to the last
        // one present, an absent one before it as "". So a login that ended early re-encodes to
        // itself, and one with a plugin name (every login Sluice sends) is laid out in full.
        boolean attributes = Capabilities.has(capabilities, CLIENT_CONNECT_ATTRS) && !connectAttributes.isEmpty();
        boolean plugin = Capabilities.has(capabilities, CLIENT_PLUGIN_AUTH)
                && (authPluginName.isPresent() || attributes);
        if (Capabilities.has(capabilities, CLIENT_CONNECT_WITH_DB) && (database.isPresent() || plugin || attributes)) {
            Fields.writeNulString(out, database.orElse(""), StandardCharsets.UTF_8);
        }
        if (plugin) {
            Fields.writeNulString(out, authPluginName.orElse(""), StandardCharsets.UTF_8);
        }
        if (Capabilities.has(capabilities, CLIENT_CONNECT_ATTRS) && (attributes || plugin)) {
            ConnectAttributes.encode(out, connectAttributes);
        }
    }

    /** The 32 bytes every response starts with (all of an SSL request). */
    static void writeFixedPart(ByteBuf out, long capabilities, long maxPacketSize, int collation) {
        out.writeIntLE((int) capabilities);
        out.writeIntLE((int) maxPacketSize);
        out.writeByte(collation);
        out.writeZero(FILLER);
        out.writeIntLE(Capabilities.isMariaDb(capabilities) ? Capabilities.extendedBits(capabilities) : 0);
    }

    /** Reads a response payload; throws {@link MalformedPacketException} on any inconsistency. */
    public static HandshakeResponse41 decode(ByteBuf in) {
        long lower = Fields.readInt4(in, "capabilities");
        if (!Capabilities.has(lower, CLIENT_PROTOCOL_41)) {
            throw new MalformedPacketException("pre-4.1 handshake response (no CLIENT_PROTOCOL_41) is not supported");
        }
        long maxPacketSize = Fields.readInt4(in, "max packet size");
        int collation = Fields.readInt1(in, "collation");
        Fields.skip(in, FILLER, "filler");
        int extended = (int) Fields.readInt4(in, "extended capabilities");
        long caps = Capabilities.isMariaDb(lower) ? Capabilities.combine(lower, extended) : lower;
        String username = Fields.readNulString(in, StandardCharsets.UTF_8, "user name");
        byte[] auth;
        if (Capabilities.has(caps, CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)) {
            auth = LengthEncoded.readBytes(in, "auth response");
        } else if (Capabilities.has(caps, CLIENT_SECURE_CONNECTION)) {
            auth = Fields.readFixed(in, Fields.readInt1(in, "auth response length"), "auth response");
        } else {
            auth = Fields.readNulBytes(in, "auth response");
        }
        Optional<String> database = Optional.empty();
        if (Capabilities.has(caps, CLIENT_CONNECT_WITH_DB) && in.isReadable()) {
            database = Optional.of(Fields.readNulString(in, StandardCharsets.UTF_8, "database"));
        }
        Optional<String> plugin = Optional.empty();
        if (Capabilities.has(caps, CLIENT_PLUGIN_AUTH) && in.isReadable()) {
            plugin = Optional.of(Fields.readNulString(in, StandardCharsets.UTF_8, "auth plugin name"));
        }
        Map<String, String> attributes = Map.of();
        if (Capabilities.has(caps, CLIENT_CONNECT_ATTRS) && in.isReadable()) {
            attributes = ConnectAttributes.decode(in);
        }
        return new HandshakeResponse41(caps, maxPacketSize, collation, username, auth, database, plugin,
                attributes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HandshakeResponse41 r && capabilities == r.capabilities
                && maxPacketSize == r.maxPacketSize && collation == r.collation
                && username.equals(r.username) && Arrays.equals(authResponse, r.authResponse)
                && database.equals(r.database) && authPluginName.equals(r.authPluginName)
                && connectAttributes.equals(r.connectAttributes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(capabilities, maxPacketSize, collation, username, Arrays.hashCode(authResponse),
                database, authPluginName, connectAttributes);
    }

    /** Leaves the auth response out, so that logging the record does not log secrets. */
    @Override
    public String toString() {
        return "HandshakeResponse41[capabilities=" + Capabilities.describe(capabilities)
                + ", maxPacketSize=" + maxPacketSize + ", collation=" + collation + ", username=" + username
                + ", authResponse=<" + authResponse.length + " bytes>, database=" + database
                + ", authPluginName=" + authPluginName + ", connectAttributes=" + connectAttributes + "]";
    }
}
