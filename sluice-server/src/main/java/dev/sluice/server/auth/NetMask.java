package dev.sluice.server.auth;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/** An IPv4 {@code address/netmask} host part, as MariaDB accounts may use ({@code 10.0.0.0/255.0.0.0}). */
record NetMask(int address, int mask) {

    static Optional<NetMask> parse(String text) {
        String[] parts = text.split("/", 2);
        Optional<Integer> a = ipv4(parts[0]);
        Optional<Integer> m = ipv4(parts[1]);
        return a.isPresent() && m.isPresent() ? Optional.of(new NetMask(a.get(), m.get())) : Optional.empty();
    }

    boolean contains(String host) {
        return ipv4(host).map(h -> (h & mask) == (address & mask)).orElse(false);
    }

    private static Optional<Integer> ipv4(String s) {
        if (!s.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return Optional.empty();
        }
        try {
            byte[] b = InetAddress.getByName(s).getAddress();
            return Optional.of(((b[0] & 0xFF) << 24) | ((b[1] & 0xFF) << 16) | ((b[2] & 0xFF) << 8) | (b[3] & 0xFF));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
