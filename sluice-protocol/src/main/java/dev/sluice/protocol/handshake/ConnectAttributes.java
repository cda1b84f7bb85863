package dev.sluice.protocol.handshake;

import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The connection attributes block of a handshake response: {@code int<lenenc>} total length,
 * then {@code string<lenenc>} key / value pairs.
 *
 * @see <a href="https://mariadb.com/kb/en/connection/#handshake-response-packet">MariaDB: handshake response packet</a>
 */
final class ConnectAttributes {
    private ConnectAttributes() {}

    static Map<String, String> decode(ByteBuf in) {
        ByteBuf block = LengthEncoded.readSlice(in, "connect attributes");
        Map<String, String> attributes = new LinkedHashMap<>();
        while (block.isReadable()) {
            String key = LengthEncoded.readString(block, "connect attribute name");
            if (!block.isReadable()) {
                throw new MalformedPacketException("connect attribute '" + key + "' has no value");
            }
            attributes.put(key, LengthEncoded.readString(block, "connect attribute value"));
        }
        return attributes;
    }

    static void encode(ByteBuf out, Map<String, String> attributes) {
        int lengthIndex = out.writerIndex();
        int size = 0;
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            size += LengthEncoded.sizeOfString(e.getKey().getBytes(StandardCharsets.UTF_8).length);
            size += LengthEncoded.sizeOfString(e.getValue().getBytes(StandardCharsets.UTF_8).length);
        }
        LengthEncoded.writeInteger(out, size);
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            LengthEncoded.writeString(out, e.getKey());
            LengthEncoded.writeString(out, e.getValue());
        }
        assert out.writerIndex() - lengthIndex == LengthEncoded.sizeOf(size) + size;
    }
}
