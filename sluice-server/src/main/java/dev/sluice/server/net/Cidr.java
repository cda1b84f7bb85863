package dev.sluice.server.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * An address block such as {@code 10.0.0.0/8} or {@code fd00::/8}; a bare address is a block of
 * one. IPv4-mapped IPv6 clients ({@code ::ffff:10.1.2.3}) match IPv4 blocks.
 */
public record Cidr(byte[] network, int prefixBits) {
    private static final int BITS_PER_BYTE = 8;
    private static final int IPV4_MAPPED_PREFIX = 12;

    public static Optional<Cidr> parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        if (!addr.matches("[0-9a-fA-F:.]+")) {
            return Optional.empty();
        }
        try {
            byte[] bytes = normalize(InetAddress.getByName(addr));
            int bits = bytes.length * BITS_PER_BYTE;
            if (slash >= 0) {
                bits = Integer.parseInt(t.substring(slash + 1));
                if (bits < 0 || bits > bytes.length * BITS_PER_BYTE) {
                    return Optional.empty();
                }
            }
            return Optional.of(new Cidr(bytes, bits));
        } catch (UnknownHostException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    public boolean contains(InetAddress address) {
        byte[] a = normalize(address);
        if (a.length != network.length) {
            return false;
        }
        int full = prefixBits / BITS_PER_BYTE;
        for (int i = 0; i < full; i++) {
            if (a[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixBits % BITS_PER_BYTE;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (BITS_PER_BYTE - rest)) & 0xFF;
        return (a[full] & mask) == (network[full] & mask);
    }

    private static byte[] normalize(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet6Address && isIpv4Mapped(b)) {
            byte[] v4 = new byte[4];
            System.arraycopy(b, IPV4_MAPPED_PREFIX, v4, 0, 4);
            return v4;
        }
        return b;
    }

    private static boolean isIpv4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xFF) == 0xFF && (b[11] & 0xFF) == 0xFF;
    }
}
