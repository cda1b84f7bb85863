package dev.sluice.it.security;

import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;
import static dev.sluice.protocol.packet.Packets.MAX_PAYLOAD;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Mutations of real packets (4-byte header included), in two families.
 *
 * <p><b>Framed</b> mutations keep the framing honest — the header's length matches the bytes and
 * the sequence id is the seed's — and damage the payload: bit flips, truncation, extension,
 * interesting byte values, another command byte, a splice of two seeds, random garbage. Sluice
 * must answer each (or close) and go on reading the next packet, so a connection can carry many.
 *
 * <p><b>Breaking</b> mutations damage the framing itself: a length field that lies (more or
 * fewer bytes than it announces, up to a 16 MB frame), a wrong sequence id, bit flips in the
 * header, a packet cut short, an empty packet, bytes with no framing at all. After one of these
 * the stream is out of step, so it is the last packet of its connection.
 */
final class PacketMutator {
    private static final int MAX_GARBAGE = 512;
    private static final int MAX_EXTENSION = 64;
    private static final int MAX_FLIPS = 8;
    private static final byte[] INTERESTING = {0, 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFA, (byte) 0xFB, (byte) 0xFC,
            (byte) 0xFD, (byte) 0xFE, (byte) 0xFF};
    /** Command bytes worth landing on: every defined command and a few beyond. */
    private static final int COMMANDS = 0x20;

    private final Random random;

    PacketMutator(Random random) {
        this.random = random;
    }

    /** A mutation that keeps the framing: same sequence id, length field true, payload not empty. */
    byte[] framed(byte[] seed, List<byte[]> others) {
        byte[] payload = Arrays.copyOfRange(seed, HEADER_SIZE, seed.length);
        int seq = seed[3] & 0xFF;
        byte[] out = switch (random.nextInt(7)) {
            case 0 -> flipBits(payload);
            case 1 -> payload.length <= 1 ? flipBits(payload) : Arrays.copyOf(payload, 1 + random.nextInt(payload.length - 1));
            case 2 -> concat(payload, garbage(1 + random.nextInt(MAX_EXTENSION)));
            case 3 -> interestingBytes(payload);
            case 4 -> commandByte(payload);
            case 5 -> splice(payload, others.get(random.nextInt(others.size())));
            default -> garbage(1 + random.nextInt(MAX_GARBAGE));
        };
        if (out.length == 0) {
            out = garbage(1);
        }
        return frame(out, out.length, seq);
    }

    /** A mutation that breaks the framing (or the protocol's sequence): the last packet of a connection. */
    byte[] breaking(byte[] seed) {
        byte[] payload = Arrays.copyOfRange(seed, HEADER_SIZE, seed.length);
        int seq = seed[3] & 0xFF;
        return switch (random.nextInt(7)) {
            // The length field announces more than follows (the client then goes quiet) ...
            case 0 -> frame(payload, payload.length + 1 + random.nextInt(random.nextBoolean() ? 16 : MAX_PAYLOAD - payload.length), seq);
            // ... or less: the rest is read as the next packet's header.
            case 1 -> frame(payload, random.nextInt(Math.max(1, payload.length)), seq);
            case 2 -> frame(payload, payload.length, (seq + 1 + random.nextInt(255)) & 0xFF);
            case 3 -> {
                byte[] whole = frame(payload, payload.length, seq);
                int flips = 1 + random.nextInt(3);
                for (int i = 0; i < flips; i++) {
                    whole[random.nextInt(HEADER_SIZE)] ^= (byte) (1 << random.nextInt(8));
                }
                yield whole;
            }
            case 4 -> Arrays.copyOf(frame(payload, payload.length, seq), random.nextInt(HEADER_SIZE + payload.length));
            case 5 -> frame(new byte[0], 0, seq);
            default -> garbage(1 + random.nextInt(MAX_GARBAGE));
        };
    }

    /** Any mutation, framed or breaking: for a connection that sends one packet and is done. */
    byte[] any(byte[] seed, List<byte[]> others) {
        return random.nextInt(3) == 0 ? breaking(seed) : framed(seed, others);
    }

    /** A TLS record (the ClientHello) damaged: flipped bits, cut short, extended, or replaced. */
    byte[] tlsRecord(byte[] record) {
        return switch (random.nextInt(4)) {
            case 0 -> flipBits(record);
            case 1 -> Arrays.copyOf(record, random.nextInt(record.length));
            case 2 -> concat(flipBits(record), garbage(1 + random.nextInt(MAX_GARBAGE)));
            default -> garbage(1 + random.nextInt(MAX_GARBAGE));
        };
    }

    private byte[] flipBits(byte[] in) {
        byte[] out = in.length == 0 ? garbage(1) : in.clone();
        int flips = 1 + random.nextInt(MAX_FLIPS);
        for (int i = 0; i < flips; i++) {
            out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return out;
    }

    private byte[] interestingBytes(byte[] in) {
        byte[] out = in.length == 0 ? garbage(1) : in.clone();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
            out[random.nextInt(out.length)] = INTERESTING[random.nextInt(INTERESTING.length)];
        }
        return out;
    }

    private byte[] commandByte(byte[] in) {
        byte[] out = in.length == 0 ? new byte[1] : in.clone();
        out[0] = (byte) (random.nextInt(8) == 0 ? 0xF0 + random.nextInt(16) : random.nextInt(COMMANDS));
        return out;
    }

    private byte[] splice(byte[] a, byte[] otherPacket) {
        byte[] b = Arrays.copyOfRange(otherPacket, HEADER_SIZE, otherPacket.length);
        int cutA = random.nextInt(a.length + 1);
        int cutB = random.nextInt(b.length + 1);
        return concat(Arrays.copyOf(a, cutA), Arrays.copyOfRange(b, cutB, b.length));
    }

    byte[] garbage(int n) {
        byte[] out = new byte[n];
        random.nextBytes(out);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Header (claiming {@code claimedLength}) plus the payload bytes actually there. */
    private static byte[] frame(byte[] payload, int claimedLength, int seq) {
        byte[] out = new byte[HEADER_SIZE + payload.length];
        out[0] = (byte) claimedLength;
        out[1] = (byte) (claimedLength >>> 8);
        out[2] = (byte) (claimedLength >>> 16);
        out[3] = (byte) seq;
        System.arraycopy(payload, 0, out, HEADER_SIZE, payload.length);
        return out;
    }
}
