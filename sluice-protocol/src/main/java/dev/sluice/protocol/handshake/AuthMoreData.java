package dev.sluice.protocol.handshake;

import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Extra authentication data from the server: 0x01 followed by plugin-specific bytes, e.g.
 * caching_sha2_password's fast-auth-success (0x03) or perform-full-authentication (0x04), or
 * an RSA public key.
 *
 * @param data the bytes after the 0x01 header
 * @see <a href="https://mariadb.com/kb/en/connection/#authentication-switch-request">MariaDB: connection phase</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase_packets_protocol_auth_more_data.html">MySQL:
 *     Protocol::AuthMoreData</a>
 */
public record AuthMoreData(byte[] data) {
    public static final int HEADER = 0x01;

    public AuthMoreData {
        data = data.clone();
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    /** True when {@code payload} starts with the AuthMoreData header. */
    public static boolean isAuthMoreData(ByteBuf payload) {
        return payload.isReadable() && payload.getUnsignedByte(payload.readerIndex()) == HEADER;
    }

    public void encode(ByteBuf out) {
        out.writeByte(HEADER).writeBytes(data);
    }

    public static AuthMoreData decode(ByteBuf in) {
        int header = Fields.readInt1(in, "auth more data header");
        if (header != HEADER) {
            throw new MalformedPacketException(String.format("auth more data: header 0x%02x", header));
        }
        return new AuthMoreData(Fields.readRestBytes(in));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthMoreData a && Arrays.equals(data, a.data);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "AuthMoreData[data=<" + data.length + " bytes>]";
    }
}
