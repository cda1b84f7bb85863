package dev.sluice.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.Charset;

/**
 * Bounds-checked readers for the fixed-size and NUL-terminated protocol data types
 * ({@code int<1..8>}, {@code string<fix>}, {@code string<NUL>}, {@code string<EOF>}). All
 * integers are little-endian. Each reader names the field it reads, so that a truncated
 * packet produces a {@link MalformedPacketException} that says what was missing.
 *
 * @see <a href="https://mariadb.com/kb/en/protocol-data-types/">MariaDB: protocol data types</a>
 */
public final class Fields {
    private static final int NUL = 0;

    private Fields() {}

    /** Throws unless {@code n} bytes are readable. */
    public static void require(ByteBuf in, int n, String field) {
        if (n < 0 || in.readableBytes() < n) {
            throw new MalformedPacketException(field + ": needs " + n + " bytes, packet has "
                    + in.readableBytes() + " left");
        }
    }

    public static int readInt1(ByteBuf in, String field) {
        require(in, 1, field);
        return in.readUnsignedByte();
    }

    public static int readInt2(ByteBuf in, String field) {
        require(in, 2, field);
        return in.readUnsignedShortLE();
    }

    public static int readInt3(ByteBuf in, String field) {
        require(in, 3, field);
        return in.readUnsignedMediumLE();
    }

    /** Reads a 4-byte integer as unsigned. */
    public static long readInt4(ByteBuf in, String field) {
        require(in, 4, field);
        return in.readUnsignedIntLE();
    }

    public static long readInt8(ByteBuf in, String field) {
        require(in, 8, field);
        return in.readLongLE();
    }

    public static byte[] readFixed(ByteBuf in, int n, String field) {
        require(in, n, field);
        byte[] bytes = new byte[n];
        in.readBytes(bytes);
        return bytes;
    }

    public static void skip(ByteBuf in, int n, String field) {
        require(in, n, field);
        in.skipBytes(n);
    }

    /** Reads a NUL-terminated byte string and consumes the terminator. */
    public static byte[] readNulBytes(ByteBuf in, String field) {
        int length = nulTerminatedLength(in, field);
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        in.skipBytes(1);
        return bytes;
    }

    /** Reads a NUL-terminated string and consumes the terminator. */
    public static String readNulString(ByteBuf in, Charset charset, String field) {
        int length = nulTerminatedLength(in, field);
        String s = in.toString(in.readerIndex(), length, charset);
        in.skipBytes(length + 1);
        return s;
    }

    /** Reads everything that is left ({@code string<EOF>}). */
    public static String readRestString(ByteBuf in, Charset charset) {
        String s = in.toString(charset);
        in.skipBytes(in.readableBytes());
        return s;
    }

    /** Reads everything that is left ({@code string<EOF>}) as bytes. */
    public static byte[] readRestBytes(ByteBuf in) {
        byte[] bytes = new byte[in.readableBytes()];
        in.readBytes(bytes);
        return bytes;
    }

    public static void writeNulString(ByteBuf out, String s, Charset charset) {
        writeNulBytes(out, s.getBytes(charset));
    }

    /** Writes bytes plus a NUL terminator; the bytes must not contain NUL themselves. */
    public static void writeNulBytes(ByteBuf out, byte[] bytes) {
        for (byte b : bytes) {
            if (b == NUL) {
                throw new IllegalArgumentException("NUL inside a NUL-terminated string");
            }
        }
        out.writeBytes(bytes).writeByte(NUL);
    }

    private static int nulTerminatedLength(ByteBuf in, String field) {
        int nul = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) NUL);
        if (nul < 0) {
            throw new MalformedPacketException(field + ": NUL terminator missing");
        }
        return nul - in.readerIndex();
    }
}
