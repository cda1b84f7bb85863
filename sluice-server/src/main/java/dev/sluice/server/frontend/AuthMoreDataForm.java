package dev.sluice.server.frontend;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to write a caching_sha2_password status (0x03 fast auth success, 0x04 perform full
 * authentication) so that the client reads it.
 *
 * <p>The sharp edge: MySQL Connector/J takes the plugin data of an AuthMoreData packet from
 * <em>its first byte</em>, the 0x01 header included, when the server's version is older than
 * 5.5.16 — and a MariaDB server, whose identity Sluice passes on, announces itself as
 * {@code 5.5.5-10.x}. Connector/J would then read the header as the status ("Unknown server
 * response after fast auth"). For that client and such a version, the status goes without the
 * header (Connector/J reads it right, since no other packet type starts with 0x03 or 0x04); every
 * other client gets the standard {@code 0x01 status}.
 */
final class AuthMoreDataForm {
    private static final int HEADER = 0x01;
    private static final String CLIENT_NAME = "_client_name";
    private static final String CONNECTOR_J = "MySQL Connector/J";
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)\\.(\\d+)");
    /** Connector/J's {@code versionMeetsMinimum(5, 5, 16)}. */
    private static final int[] HEADER_READ_SINCE = {5, 5, 16};

    private AuthMoreDataForm() {
    }

    /** The packet payload carrying {@code status} to this client. */
    static byte[] payload(int status, Map<String, String> connectAttributes, String serverVersion) {
        if (CONNECTOR_J.equals(connectAttributes.get(CLIENT_NAME)) && olderThanHeaderRead(serverVersion)) {
            return new byte[] {(byte) status};
        }
        return new byte[] {HEADER, (byte) status};
    }

    private static boolean olderThanHeaderRead(String version) {
        Matcher m = VERSION.matcher(version);
        if (!m.find()) {
            return false;
        }
        for (int i = 0; i < HEADER_READ_SINCE.length; i++) {
            int part = Integer.parseInt(m.group(i + 1));
            if (part != HEADER_READ_SINCE[i]) {
                return part < HEADER_READ_SINCE[i];
            }
        }
        return false;
    }
}
