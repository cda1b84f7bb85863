package dev.sluice.protocol.stream;

import io.netty.buffer.ByteBuf;

/**
 * Length-encoded integers read at absolute indexes, bounds-checked against an end index, for
 * the scanner's hot path (no exceptions, no index movement).
 */
final class LengthEncodedReader {
    private static final int TWO_BYTES = 0xFC;
    private static final int THREE_BYTES = 0xFD;
    private static final int EIGHT_BYTES = 0xFE;
    private static final int NULL_MARKER = 0xFB;

    private LengthEncodedReader() {
    }

    /** The value at {@code i}, or -1 when it does not fit before {@code end} or is not an integer. */
    static long readInt(ByteBuf buf, int i, int end) {
        if (i >= end) {
            return -1;
        }
        int b = buf.getUnsignedByte(i);
        if (b < NULL_MARKER) {
            return b;
        }
        return switch (b) {
            case TWO_BYTES -> i + 3 <= end ? buf.getUnsignedShortLE(i + 1) : -1;
            case THREE_BYTES -> i + 4 <= end ? buf.getUnsignedMediumLE(i + 1) : -1;
            case EIGHT_BYTES -> i + 9 <= end ? buf.getLongLE(i + 1) : -1;
            default -> -1;
        };
    }

    /** Index just after the integer at {@code i}, or -1 when it does not fit. */
    static int skip(ByteBuf buf, int i, int end) {
        if (i < 0 || i >= end) {
            return -1;
        }
        int b = buf.getUnsignedByte(i);
        int size = b < NULL_MARKER ? 1 : switch (b) {
            case TWO_BYTES -> 3;
            case THREE_BYTES -> 4;
            case EIGHT_BYTES -> 9;
            default -> 1;
        };
        return i + size <= end ? i + size : -1;
    }
}
