package dev.sluice.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Length-encoded integers and strings ({@code int<lenenc>}, {@code string<lenenc>}).
 *
 * <p>First byte {@code < 0xFB}: the value itself. {@code 0xFC}: a 2-byte value follows;
 * {@code 0xFD}: 3 bytes; {@code 0xFE}: 8 bytes. {@code 0xFB} is SQL NULL in a text row and is
 * not an integer; {@code 0xFF} is never an integer (it is the ERR header). Sharp edge: the
 * 8-byte form is unsigned on the wire, so a value above {@link Long#MAX_VALUE} comes back
 * negative from {@link #readInteger}; {@link #readLength} rejects such values as lengths.
 *
 * <p>Readers advance the reader index and throw {@link MalformedPacketException} on truncated
 * input or on a length that runs past the end of the buffer. The {@code get…At} variants read
 * at an absolute index, move nothing and allocate nothing (for hot paths).
 *
 * @see <a href="https://mariadb.com/kb/en/protocol-data-types/#length-encoded-integers">MariaDB:
 *     protocol data types, length-encoded integers</a>
 */
public final class LengthEncoded {
    /** First byte of a NULL column value in a text-protocol row. */
    public static final int NULL_MARKER = 0xFB;
    /** Prefix of a 2-byte integer. */
    public static final int PREFIX_2 = 0xFC;
    /** Prefix of a 3-byte integer. */
    public static final int PREFIX_3 = 0xFD;
    /** Prefix of an 8-byte integer. */
    public static final int PREFIX_8 = 0xFE;
    /** Largest value that fits in the one-byte form. */
    public static final int MAX_ONE_BYTE = 0xFA;

    private static final int MAX_TWO_BYTES = 0xFFFF;
    private static final int MAX_THREE_BYTES = 0xFF_FFFF;

    private LengthEncoded() {}

    /** True when the next byte is the NULL marker (does not consume it). */
    public static boolean isNull(ByteBuf in) {
        return in.isReadable() && in.getUnsignedByte(in.readerIndex()) == NULL_MARKER;
    }

    /** Reads a length-encoded integer (unsigned; 8-byte values above 2^63 come back negative). */
    public static long readInteger(ByteBuf in) {
        int size = encodedSizeAt(in, in.readerIndex());
        long value = getIntegerAt(in, in.readerIndex());
        in.skipBytes(size);
        return value;
    }

    /**
     * Reads a length-encoded integer used as the length of what follows, and checks that that
     * many bytes are readable.
     */
    public static int readLength(ByteBuf in, String field) {
        long length = readInteger(in);
        if (length < 0 || length > in.readableBytes()) {
            throw new MalformedPacketException(field + ": length " + Long.toUnsignedString(length)
                    + " exceeds the " + in.readableBytes() + " bytes left in the packet");
        }
        return (int) length;
    }

    public static byte[] readBytes(ByteBuf in, String field) {
        byte[] bytes = new byte[readLength(in, field)];
        in.readBytes(bytes);
        return bytes;
    }

    /** Reads a string without copying: the slice shares the buffer and is not retained. */
    public static ByteBuf readSlice(ByteBuf in, String field) {
        return in.readSlice(readLength(in, field));
    }

    public static String readString(ByteBuf in, Charset charset, String field) {
        int length = readLength(in, field);
        String s = in.toString(in.readerIndex(), length, charset);
        in.skipBytes(length);
        return s;
    }

    public static String readString(ByteBuf in, String field) {
        return readString(in, StandardCharsets.UTF_8, field);
    }

    /** Reads a text-protocol column value: empty for SQL NULL. */
    public static Optional<String> readNullableString(ByteBuf in, Charset charset, String field) {
        if (isNull(in)) {
            in.skipBytes(1);
            return Optional.empty();
        }
        return Optional.of(readString(in, charset, field));
    }

    /** Skips a length-encoded string. */
    public static void skipString(ByteBuf in, String field) {
        in.skipBytes(readLength(in, field));
    }

    /**
     * Number of bytes the length-encoded integer at {@code index} occupies (1, 3, 4 or 9),
     * checked against the buffer's writer index.
     */
    public static int encodedSizeAt(ByteBuf buf, int index) {
        if (index >= buf.writerIndex()) {
            throw new MalformedPacketException("length-encoded integer: packet ends at offset " + index);
        }
        int first = buf.getUnsignedByte(index);
        int size = prefixSize(first);
        if (size < 0) {
            throw new MalformedPacketException(String.format(
                    "length-encoded integer: invalid first byte 0x%02x at offset %d", first, index));
        }
        if (buf.writerIndex() - index < size) {
            throw new MalformedPacketException("length-encoded integer: needs " + size
                    + " bytes at offset " + index + ", packet has " + (buf.writerIndex() - index));
        }
        return size;
    }

    /**
     * Bytes a length-encoded integer occupies, judged from its first byte: 1, 3, 4 or 9, or -1
     * for 0xFB (NULL) and 0xFF, which start no integer.
     */
    public static int prefixSize(int firstByte) {
        if (firstByte <= MAX_ONE_BYTE) {
            return 1;
        }
        switch (firstByte) {
            case PREFIX_2:
                return 3;
            case PREFIX_3:
                return 4;
            case PREFIX_8:
                return 9;
            default:
                return -1;
        }
    }

    /** Reads the integer at {@code index} without moving any index. */
    public static long getIntegerAt(ByteBuf buf, int index) {
        int size = encodedSizeAt(buf, index);
        switch (size) {
            case 1:
                return buf.getUnsignedByte(index);
            case 3:
                return buf.getUnsignedShortLE(index + 1);
            case 4:
                return buf.getUnsignedMediumLE(index + 1);
            default:
                return buf.getLongLE(index + 1);
        }
    }

    /** Bytes needed to encode {@code value} (treated as unsigned). */
    public static int sizeOf(long value) {
        if (value >= 0 && value <= MAX_ONE_BYTE) {
            return 1;
        }
        if (value >= 0 && value <= MAX_TWO_BYTES) {
            return 3;
        }
        if (value >= 0 && value <= MAX_THREE_BYTES) {
            return 4;
        }
        return 9;
    }

    /** Bytes needed to encode a string of {@code length} bytes. */
    public static int sizeOfString(int length) {
        return sizeOf(length) + length;
    }

    public static void writeInteger(ByteBuf out, long value) {
        switch (sizeOf(value)) {
            case 1:
                out.writeByte((int) value);
                break;
            case 3:
                out.writeByte(PREFIX_2).writeShortLE((int) value);
                break;
            case 4:
                out.writeByte(PREFIX_3).writeMediumLE((int) value);
                break;
            default:
                out.writeByte(PREFIX_8).writeLongLE(value);
        }
    }

    public static void writeBytes(ByteBuf out, byte[] bytes) {
        writeInteger(out, bytes.length);
        out.writeBytes(bytes);
    }

    /** Writes the readable bytes of {@code bytes} without consuming them. */
    public static void writeBytes(ByteBuf out, ByteBuf bytes) {
        writeInteger(out, bytes.readableBytes());
        out.writeBytes(bytes, bytes.readerIndex(), bytes.readableBytes());
    }

    public static void writeString(ByteBuf out, String s, Charset charset) {
        writeBytes(out, s.getBytes(charset));
    }

    public static void writeString(ByteBuf out, String s) {
        writeString(out, s, StandardCharsets.UTF_8);
    }

    public static void writeNull(ByteBuf out) {
        out.writeByte(NULL_MARKER);
    }
}
