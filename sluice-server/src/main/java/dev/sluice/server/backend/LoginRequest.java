package dev.sluice.server.backend;

import dev.sluice.server.auth.Credential;
import java.util.Map;
import java.util.Optional;

/**
 * Who to log in as on a backend, and with which session properties: the client's own
 * capabilities and collation are reused so that every packet can be forwarded without rewriting.
 *
 * @param user account name
 * @param credential what answers the backend's challenge
 * @param database default schema, if the client asked for one
 * @param clientCapabilities capabilities the client negotiated with Sluice
 * @param collation the client's collation id
 * @param maxPacketSize the client's max packet size
 * @param connectAttributes attributes to pass on (the client's, plus Sluice's own)
 */
public record LoginRequest(String user, Credential credential, Optional<String> database, long clientCapabilities,
        int collation, long maxPacketSize, Map<String, String> connectAttributes) {
}
