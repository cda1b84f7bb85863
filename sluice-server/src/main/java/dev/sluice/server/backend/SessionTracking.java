package dev.sluice.server.backend;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Asks a backend to report, in its OK packets, the GTID each commit of the session got (BEHAVIOUR §5:
 * session consistency and the consistency token depend on it): MariaDB's {@code last_gtid}
 * tracked variable, MySQL's {@code session_track_gtids=OWN_GTID}. The server's default tracked
 * variables are kept, since clients may rely on them.
 */
public final class SessionTracking {
    private static final String MARIADB = "SET SESSION session_track_system_variables = "
            + "CONCAT_WS(',', NULLIF(@@session.session_track_system_variables, ''), 'last_gtid')";
    private static final String MYSQL = "SET SESSION session_track_gtids = OWN_GTID";
    private static final byte[] VARIABLE = "session_track_system_variables".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MYSQL_VARIABLE = "session_track_gtids".getBytes(StandardCharsets.US_ASCII);

    private SessionTracking() {
    }

    /** The statement that turns GTID tracking on for a backend of this version. */
    public static String enableStatement(String serverVersion) {
        return serverVersion.toLowerCase(Locale.ROOT).contains("mariadb") ? MARIADB : MYSQL;
    }

    /** Sends it on {@code b} without waiting; a server that cannot do it just tracks nothing. */
    public static void enable(BackendConnection b) {
        enable(b, new TextResultCollector());
    }

    /** Sends it on {@code b}; {@code answer} gets the server's answer (nothing to read in it). */
    public static void enable(BackendConnection b, ResponseSink answer) {
        b.send(InternalQuery.queryPacket(b.channel().alloc().buffer(), enableStatement(b.serverVersion())),
                dev.sluice.protocol.stream.ResponseKind.RESULT, answer);
    }

    /**
     * Whether a client's statement may change what the backend tracks, so that tracking must be
     * turned on again after it: MariaDB Connector/J, for one, sets its own list at every connect.
     * A plain case-insensitive search of the packet: a false positive costs one more SET.
     */
    public static boolean mayChangeTracking(ByteBuf frame) {
        return contains(frame, VARIABLE) || contains(frame, MYSQL_VARIABLE);
    }

    private static boolean contains(ByteBuf haystack, byte[] needle) {
        int end = haystack.writerIndex() - needle.length;
        outer:
        for (int i = haystack.readerIndex(); i <= end; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (Character.toLowerCase(haystack.getByte(i + j)) != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
