package dev.sluice.server.frontend;

import io.netty.buffer.ByteBuf;

/**
 * What a logged-in client's socket tells its session ({@link ClientSessionHandler} is the one who
 * tells it), and what the idle timeout must know before it closes a silent client.
 */
interface ClientEvents {
    /** A physical packet from the client (header included); the session owns it from now on. */
    void frame(ByteBuf frame);

    /** Refuses a packet that was never taken as a command: the ERR answers that packet's sequence id. */
    void refuse(int sequenceId, int code, String sqlState, String message);

    /** The client's socket can take more bytes again. */
    void clientWritable();

    /** The client's socket closed, for whatever reason. */
    void clientClosed();

    /** Closes the session and the client's socket. */
    void close();

    boolean isClosed();

    /** Whether a backend is answering one of the session's requests (the client is not idle then). */
    boolean backendAnswering();
}
