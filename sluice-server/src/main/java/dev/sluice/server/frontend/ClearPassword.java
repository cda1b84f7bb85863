package dev.sluice.server.frontend;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The client's answer to {@code caching_sha2_password}'s "perform full authentication": its
 * password followed by a NUL (which some clients leave out).
 */
final class ClearPassword {
    private ClearPassword() {
    }

    static byte[] read(ByteBuf payload) {
        byte[] bytes = new byte[payload.readableBytes()];
        payload.getBytes(payload.readerIndex(), bytes);
        int length = bytes.length > 0 && bytes[bytes.length - 1] == 0 ? bytes.length - 1 : bytes.length;
        return Arrays.copyOf(bytes, length);
    }
}
