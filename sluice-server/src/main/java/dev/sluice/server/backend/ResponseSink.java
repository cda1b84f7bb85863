package dev.sluice.server.backend;

import dev.sluice.protocol.stream.ResponseListener;
import dev.sluice.protocol.stream.ResponseTracker;
import io.netty.buffer.ByteBuf;

/**
 * Where the bytes of one response go: to the client (forwarded as they arrive) or to Sluice
 * itself (session replay, internal queries). Called on the backend's event loop.
 */
public interface ResponseSink {

    /** Settled bytes of the response, in order. The sink owns {@code bytes} and must release or pass it on. */
    void onBytes(ByteBuf bytes);

    /** The response ended; {@code tracker} still describes it (status flags, error, LOCAL INFILE). */
    void onComplete(BackendConnection backend, ResponseTracker tracker);

    /** The backend failed before the response ended. */
    void onFailure(BackendConnection backend, Throwable cause);

    /** Sees OK / ERR / PREPARE_OK packets in place while they pass. */
    default ResponseListener listener() {
        return ResponseListener.NONE;
    }

    /**
     * Whether the response goes to a client that did not negotiate CLIENT_SESSION_TRACK: the
     * session state that backends always report is then taken out of its OK packets.
     */
    default boolean stripsSessionState() {
        return false;
    }

    /** The backend's current batch of reads is done: a good moment to flush. */
    default void onReadBatchComplete() {
    }
}
