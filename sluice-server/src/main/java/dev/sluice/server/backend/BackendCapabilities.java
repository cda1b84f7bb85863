package dev.sluice.server.backend;

import static dev.sluice.protocol.Capabilities.*;

/**
 * Which capabilities Sluice offers clients and asks of backends. Backend connections use the
 * client's own choices wherever they change the shape of packets, so that responses pass through
 * byte for byte; the flags removed here are those Sluice cannot pass through unchanged. One flag
 * is always asked, whatever the client chose: CLIENT_SESSION_TRACK, since session consistency and
 * the consistency token learn each commit's GTID from it. For a client that did not negotiate it,
 * the session state is taken out of the OK packets it gets (see {@code ResponseSink#stripsSessionState}).
 */
public final class BackendCapabilities {

    /**
     * Never offered: compression (packets would have to be decompressed to be routed), query
     * attributes and optional metadata (they change COM_QUERY / result layouts), MariaDB progress
     * reports (ERR-looking packets inside a result), metadata caching (per-connection state that a
     * statement moving between backends would break), multi-factor auth and other rarities.
     */
    private static final long NEVER = CLIENT_COMPRESS | CLIENT_ZSTD_COMPRESSION_ALGORITHM | CLIENT_QUERY_ATTRIBUTES
            | CLIENT_OPTIONAL_RESULTSET_METADATA | CLIENT_MULTI_FACTOR_AUTHENTICATION | CLIENT_CAPABILITY_EXTENSION
            | CLIENT_SSL_VERIFY_SERVER_CERT | CLIENT_REMEMBER_OPTIONS | CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS
            | MARIADB_CLIENT_PROGRESS | MARIADB_CLIENT_CACHE_METADATA | MARIADB_CLIENT_COM_MULTI;

    /** Required of every connection Sluice makes to a backend. */
    private static final long REQUIRED_TO_BACKEND = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH
            | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | CLIENT_TRANSACTIONS | CLIENT_LONG_PASSWORD | CLIENT_MULTI_RESULTS;

    private BackendCapabilities() {
    }

    /** Offered to clients in Sluice's greeting: what the primary offers, less what cannot pass through. */
    public static long offeredToClients(long primaryCapabilities, boolean tls) {
        long caps = primaryCapabilities & ~NEVER & ~CLIENT_SSL;
        caps |= CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_WITH_DB;
        if (tls) {
            caps |= CLIENT_SSL;
        }
        return caps;
    }

    /** Asked of a backend for a client that negotiated {@code clientCapabilities}. */
    public static long towardBackend(long clientCapabilities, long serverCapabilities, boolean withDatabase) {
        long caps = (clientCapabilities & ~NEVER & ~CLIENT_SSL & ~CLIENT_CONNECT_WITH_DB) | REQUIRED_TO_BACKEND
                | CLIENT_CONNECT_ATTRS | CLIENT_SESSION_TRACK;
        if (withDatabase) {
            caps |= CLIENT_CONNECT_WITH_DB;
        }
        caps &= serverCapabilities;
        if ((serverCapabilities & CLIENT_MYSQL) == 0) {
            // A MariaDB server: clear the MySQL bit so that the extended capabilities are read.
            caps &= ~CLIENT_MYSQL;
        }
        return caps;
    }
}
