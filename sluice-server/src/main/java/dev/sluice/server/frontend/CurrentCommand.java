package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;

/**
 * The client's command being run, as the code that runs it reaches the session: sent to a backend
 * whose answer streams back to the client, held while it waits for something, or ended by Sluice
 * with its own answer or an error. One command runs at a time; these calls move the session's
 * {@link SessionPhase} and let the next queued command start.
 */
interface CurrentCommand {
    /** Sends the whole command to {@code node}, opening a connection there first if needed. */
    void forward(NodeRef node, ByteBuf frame, ResponseKind kind, CommandListener listener);

    /** Sends it to that very connection: the packet names something of it only (a statement id). */
    void forwardOn(BackendConnection backend, ByteBuf frame, ResponseKind kind, CommandListener listener);

    /** Sends a command that gets no answer (COM_STMT_SEND_LONG_DATA) and moves on. */
    void sendWithoutResponse(BackendConnection backend, ByteBuf frame);

    /** Sends a packet of Sluice's own to {@code node} ahead of the command; its answer is Sluice's. */
    void sendBefore(NodeRef node, ByteBuf packet);

    /**
     * Like {@link #sendBefore}, for a packet that belongs to the client's transaction (a held
     * BEGIN): a replay of the transaction runs it too.
     */
    void sendBeforeInTransaction(NodeRef node, ByteBuf packet);

    /**
     * Runs {@code action} with an open connection to {@code node}, opening it first if needed;
     * {@code holdUntilDone} (may be null) is released should the connection never come.
     */
    void withBackend(NodeRef node, ByteBuf holdUntilDone, Consumer<BackendConnection> action);

    /**
     * The connection failed before the command was sent on it: for the session, the command
     * failed there before any byte of its answer (a read is retried elsewhere).
     */
    void failedOn(BackendConnection backend, Throwable cause);

    /** The command waits for something (a backend, an internal query) before it is sent. */
    void hold();

    /** The command ended without a backend's answer; the next one starts at {@link #resume()}. */
    void done();

    /** The command could not be run: the client gets this error and the session goes on. */
    void failed(int code, String sqlState, String message);

    /** Takes the next queued command, if any. */
    void resume();

    /** The next client frame answers Sluice's authentication request: {@code step} takes it. */
    void takeNextFrame(Consumer<ByteBuf> step);

    boolean sessionClosed();

    void closeSession();

    /** Tells the client why and ends the session. */
    void failAndClose(int code, String sqlState, String message);
}
