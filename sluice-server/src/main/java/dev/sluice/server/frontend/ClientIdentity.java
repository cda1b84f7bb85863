package dev.sluice.server.frontend;

import dev.sluice.server.auth.Credential;
import java.util.Map;

/**
 * Who a client session is, as established at login (or by COM_CHANGE_USER): what backends are
 * logged in with on its behalf.
 */
record ClientIdentity(String user, Credential credential, String clientHost, long capabilities, int collation,
        long maxPacketSize, Map<String, String> connectAttributes) {
}
