package dev.sluice.server.auth;

import dev.sluice.server.tls.ClientTls;
import java.util.Optional;

/**
 * What protects the client side of every endpoint: TLS (absent when turned off) and the
 * per-address limit on failed logins.
 */
public record ClientSecurity(Optional<ClientTls> tls, LoginThrottle logins) {
    /** No TLS, no login limit (a runtime built without them, e.g. in unit tests). */
    public static final ClientSecurity NONE = new ClientSecurity(Optional.empty(), LoginThrottle.off());
}
