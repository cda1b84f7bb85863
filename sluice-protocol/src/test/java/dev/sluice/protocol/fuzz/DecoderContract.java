package dev.sluice.protocol.fuzz;

import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The contract every packet decoder of this module keeps, checked on one fuzz input: it returns a
 * value or throws {@link MalformedPacketException}, nothing else; it reads no further than the
 * payload; and a value it returned survives encode → decode unchanged.
 */
final class DecoderContract {
    private final AccountedAllocator allocator;

    DecoderContract(AccountedAllocator allocator) {
        this.allocator = allocator;
    }

    /**
     * Decodes {@code payload} with {@code decoder}; when that succeeds, encodes the value with
     * {@code encoder}, decodes that again and requires the same value.
     *
     * @return the decoded value, empty when the payload is malformed
     */
    <T> Optional<T> roundTrip(String name, byte[] payload, Function<ByteBuf, T> decoder,
                              BiConsumer<T, ByteBuf> encoder) {
        Optional<T> value = decode(name, payload, decoder);
        value.ifPresent(v -> {
            ByteBuf encoded = allocator.buffer();
            try {
                encoder.accept(v, encoded);
                byte[] wire = ByteBufUtil.getBytes(encoded);
                T again;
                try {
                    again = decoder.apply(encoded);
                } catch (MalformedPacketException e) {
                    throw new AssertionError(name + ": cannot decode its own encoding "
                            + ByteBufUtil.hexDump(wire) + " of " + v, e);
                }
                if (!Objects.equals(v, again)) {
                    throw new AssertionError(name + ": " + v + " came back as " + again + " from "
                            + ByteBufUtil.hexDump(wire));
                }
            } finally {
                encoded.release();
            }
        });
        return value;
    }

    /** Decodes {@code payload}; empty when it is malformed (the only failure allowed). */
    <T> Optional<T> decode(String name, byte[] payload, Function<ByteBuf, T> decoder) {
        ByteBuf in = allocator.wrap(payload, 0, payload.length);
        try {
            T value = decoder.apply(in);
            if (value == null) {
                throw new AssertionError(name + " returned null");
            }
            if (in.readerIndex() > in.writerIndex()) {
                throw new AssertionError(name + " read past the end of the payload");
            }
            return Optional.of(value);
        } catch (MalformedPacketException expected) {
            return Optional.empty();
        } finally {
            in.release();
        }
    }

    /** Runs an in-place reader; it may only fail with {@link MalformedPacketException}. */
    <T> Optional<T> inPlace(byte[] payload, Function<ByteBuf, T> reader) {
        return decode("in-place reader", payload, reader);
    }
}
