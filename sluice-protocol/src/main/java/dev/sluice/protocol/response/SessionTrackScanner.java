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
    /** A placeholder of four bytes (UTF-32) leaves three zero bytes before the block's length. */
    private static final int MAX_STRAY_ZEROS = 3;

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
        index = blockLengthIndex(payload, index, end);
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

    /**
     * Where the session state block's length is, given {@code index} just after the info.
     *
     * <p>MariaDB (10.11 at least) writes the block's one-byte length placeholder as a character
     * of the session's current database's character set. When that set has characters of two or
     * four bytes at least (UTF-16, UCS-2, UTF-32), the placeholder is two or four zero bytes and
     * the length lands in the last of them: one or three stray zero bytes come before it
     * ({@code CREATE DATABASE d CHARACTER SET utf16; USE d; CREATE TABLE …} answers
     * {@code … 00 00 15 00 13 09 last_gtid …}). Read as laid out, that is an empty block, and
     * the session's GTID would be lost. The block always ends where the packet ends, which tells
     * the layouts apart: a zero length followed by more bytes is not an empty block.
     */
    static int blockLengthIndex(ByteBuf payload, int index, int end) {
        for (int at = index; at <= index + MAX_STRAY_ZEROS && at < end; at++) {
            if (endsAt(payload, at, end)) {
                return at;
            }
            if (payload.getByte(at) != 0) {
                break;
            }
        }
        throw new MalformedPacketException("session state changes: the block does not end with the packet");
    }

    /** Whether a length-encoded length at {@code index} is followed by exactly that many bytes to {@code end}. */
    private static boolean endsAt(ByteBuf payload, int index, int end) {
        int first = payload.getUnsignedByte(index);
        int size = LengthEncoded.prefixSize(first);
        if (size <= 0 || index + size > end) {
            return false;
        }
        long length = LengthEncoded.getIntegerAt(payload, index);
        return length >= 0 && length == end - index - size;
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
