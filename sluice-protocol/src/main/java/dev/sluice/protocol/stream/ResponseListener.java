package dev.sluice.protocol.stream;

import io.netty.buffer.ByteBuf;

/**
 * What {@link ResponseTracker} reports while it scans a response. Each callback sees the whole
 * packet payload in {@code buf} at {@code [payloadIndex, payloadIndex + length)}; it may read it,
 * or overwrite bytes in place (the statement id of a PREPARE_OK), but must not move indexes.
 */
public interface ResponseListener {
    ResponseListener NONE = new ResponseListener() { };

    /** An OK packet (also the 0xFE-headed OK that ends a result set under CLIENT_DEPRECATE_EOF). */
    default void onOk(ByteBuf buf, int payloadIndex, int length) {
    }

    /**
     * An EOF packet (a connection without CLIENT_DEPRECATE_EOF) whose status says the session's
     * state changed: an EOF has no room for the change, so the server did not send it (a
     * write that answers rows, {@code INSERT … RETURNING}, leaves its GTID untold so).
     */
    default void onSessionStateNotSent() {
    }

    /** An ERR packet; it ends the response. */
    default void onError(ByteBuf buf, int payloadIndex, int length) {
    }

    /** The first packet of a COM_STMT_PREPARE answer. */
    default void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
    }

    /** The server asks for a LOCAL INFILE; the client's file data must follow. */
    default void onLocalInfileRequest(ByteBuf buf, int payloadIndex, int length) {
    }
}
