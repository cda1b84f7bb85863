package dev.sluice.protocol.response;

import static dev.sluice.protocol.Capabilities.CLIENT_PROTOCOL_41;
import static dev.sluice.protocol.Capabilities.CLIENT_SESSION_TRACK;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.ServerStatus;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Walks the session state block of an OK payload by absolute index, moving no index and
 * allocating nothing until it finds what it looks for. Every offset is bounds-checked.
 */
final class SessionTrackScanner {
    private static final int STATUS_AND_WARNINGS = 4;

    private SessionTrackScanner() {}

    static Optional<String> findSystemVariable(ByteBuf payload, long caps, String name) {
        if (!Capabilities.has(caps, CLIENT_SESSION_TRACK) || !Capabilities.has(caps, CLIENT_PROTOCOL_41)) {
            return Optional.empty();
        }
        int statusIndex = OkPacket.statusIndex(payload, caps);
        int status = payload.getUnsignedShortLE(statusIndex);
        int end = payload.writerIndex();
        int index = statusIndex + STATUS_AND_WARNINGS;
        if (!ServerStatus.has(status, ServerStatus.SESSION_STATE_CHANGED) || index >= end) {
            return Optional.empty();
        }
        index = skipString(payload, index, end, "info");
        if (index >= end) {
            return Optional.empty();
        }
        int blockLength = length(payload, index, end, "session state changes");
        index += LengthEncoded.encodedSizeAt(payload, index);
        int blockEnd = index + blockLength;
        byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
        while (index < blockEnd) {
            int type = payload.getUnsignedByte(index++);
            int dataLength = length(payload, index, blockEnd, "session state data");
            index += LengthEncoded.encodedSizeAt(payload, index);
            int dataEnd = index + dataLength;
            if (type == SessionStateChange.SESSION_TRACK_SYSTEM_VARIABLES) {
                int pair = index;
                while (pair < dataEnd) {
                    int nameLength = length(payload, pair, dataEnd, "system variable name");
                    int nameStart = pair + LengthEncoded.encodedSizeAt(payload, pair);
                    int valueIndex = nameStart + nameLength;
                    int valueLength = length(payload, valueIndex, dataEnd, "system variable value");
                    int valueStart = valueIndex + LengthEncoded.encodedSizeAt(payload, valueIndex);
                    if (equalsAt(payload, nameStart, nameLength, wanted)) {
                        return Optional.of(payload.toString(valueStart, valueLength, StandardCharsets.UTF_8));
                    }
                    pair = valueStart + valueLength;
                }
            }
            index = dataEnd;
        }
        return Optional.empty();
    }

    /** The length-encoded length at {@code index}, checked to fit before {@code end}. */
    private static int length(ByteBuf buf, int index, int end, String field) {
        if (index >= end) {
            throw new MalformedPacketException(field + ": missing");
        }
        long length = LengthEncoded.getIntegerAt(buf, index);
        int start = index + LengthEncoded.encodedSizeAt(buf, index);
        if (length < 0 || length > end - start) {
            throw new MalformedPacketException(field + ": length " + Long.toUnsignedString(length)
                    + " runs past its end");
        }
        return (int) length;
    }

    private static int skipString(ByteBuf buf, int index, int end, String field) {
        int length = length(buf, index, end, field);
        return index + LengthEncoded.encodedSizeAt(buf, index) + length;
    }

    private static boolean equalsAt(ByteBuf buf, int index, int length, byte[] wanted) {
        if (length != wanted.length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (buf.getByte(index + i) != wanted[i]) {
                return false;
            }
        }
        return true;
    }
}
