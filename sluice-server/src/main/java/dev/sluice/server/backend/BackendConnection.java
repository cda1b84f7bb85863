package dev.sluice.server.backend;

import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One logged-in connection to one backend server.
 *
 * <p>Commands are written as they come (pipelined); their responses come back in the same order
 * and each is handed, byte range by byte range, to the {@link ResponseSink} that was given with
 * its command. A {@link ResponseTracker} finds where each response ends.
 *
 * <pre>
 *   send(cmd, kind, sink) ──▶ socket ──▶ server
 *                                          │ responses, in order
 *   sink.onBytes(slice) ◀── tracker.scan ◀─┘   sink.onComplete() at each end
 * </pre>
 *
 * <p>Confined to one event loop (the client session's), so nothing here is synchronized.
 */
public final class BackendConnection {
    private static final AtomicLong SERIALS = new AtomicLong();

    private final long serial = SERIALS.incrementAndGet();
    private final String nodeName;
    private final int nodeId;
    private final Channel channel;
    private final HandshakeV10 greeting;
    private final long capabilities;
    private final ResponseTracker tracker;
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    private ByteBuf unsettled;
    private boolean closed;
    /** Sluice closed it (as opposed to the server or the network). */
    private boolean closedByUs;
    private Runnable lostWhileIdle = () -> { };
    private Runnable writable = () -> { };

    private record Pending(ResponseKind kind, ResponseSink sink) {
    }

    /**
     * A connection over {@code channel}, already logged in: {@link BackendConnector} makes these,
     * and tests make them over an {@code EmbeddedChannel} to play a backend.
     */
    public BackendConnection(String nodeName, int nodeId, Channel channel, HandshakeV10 greeting, long capabilities) {
        this.nodeName = nodeName;
        this.nodeId = nodeId;
        this.channel = channel;
        this.greeting = greeting;
        this.capabilities = capabilities;
        this.tracker = new ResponseTracker(BackendLogin.deprecateEof(capabilities));
    }

    public String nodeName() {
        return nodeName;
    }

    /**
     * Unique among every backend connection this process opens, never reused: what a statement id
     * or a cursor the server gave is kept with, since those name something of this one connection.
     */
    public long serial() {
        return serial;
    }

    public int nodeId() {
        return nodeId;
    }

    public Channel channel() {
        return channel;
    }

    public long capabilities() {
        return capabilities;
    }

    /** The backend's own connection id (what KILL on that server takes). */
    public long serverConnectionId() {
        return greeting.connectionId();
    }

    public String serverVersion() {
        return greeting.serverVersion();
    }

    /** The server's greeting: its version, capabilities and default collation. */
    public HandshakeV10 greeting() {
        return greeting;
    }

    public boolean isUsable() {
        return !closed && channel.isActive();
    }

    /**
     * What session state this connection carries, as the session that last used it described it
     * (its schema, replayed SET history …); null for a connection nobody has used yet. A pooled
     * connection whose tag differs from what the next session needs is reset and given that state.
     */
    public String stateTag() {
        return stateTag;
    }

    public void stateTag(String tag) {
        this.stateTag = tag;
    }

    /**
     * The connection ran something that leaves state no tag describes (a write's LAST_INSERT_ID,
     * warnings, an error in the diagnostics area …): it is reset before another session uses it.
     */
    public void stateUnknown() {
        this.stateTag = UNKNOWN_STATE;
    }

    /**
     * Which {@link dev.sluice.server.runtime.GlobalsGeneration generation} of global variables
     * the connection's session values come from: a login or COM_RESET_CONNECTION takes the globals
     * as they are then.
     */
    public long globalsTaken() {
        return globalsTaken;
    }

    public void globalsTaken(long generation) {
        this.globalsTaken = generation;
    }

    public boolean stateKnown() {
        return !UNKNOWN_STATE.equals(stateTag);
    }

    /** Matches no session's tag (those start with "db="), nor the fresh state. */
    private static final String UNKNOWN_STATE = "\u0000unknown";

    private String stateTag;
    /** The globals generation this connection took its session values from (at login or reset). */
    private long globalsTaken;

    /** Responses still owed by the server. */

    public int pendingResponses() {
        return inFlight.size();
    }

    /** Writes a whole command (one or more packets, headers included) and expects one response. */
    public void send(ByteBuf packets, ResponseKind kind, ResponseSink sink) {
        send(packets, kind, sink, true);
    }

    /**
     * Like {@link #send(ByteBuf, ResponseKind, ResponseSink)}; without {@code flush} the bytes wait
     * for the next flush, so that commands sent together leave in one write.
     */
    public void send(ByteBuf packets, ResponseKind kind, ResponseSink sink, boolean flush) {
        expect(kind, sink);
        if (flush) {
            channel.writeAndFlush(packets, channel.voidPromise());
        } else {
            channel.write(packets, channel.voidPromise());
        }
    }

    /** Expects one more response, for bytes written separately (e.g. LOCAL INFILE data). */
    public void expect(ResponseKind kind, ResponseSink sink) {
        if (closed) {
            sink.onFailure(this, new BackendException("connection to backend '" + nodeName + "' is closed"));
            return;
        }
        Pending p = new Pending(kind, sink);
        inFlight.addLast(p);
        if (inFlight.size() == 1) {
            tracker.expect(kind, sink.listener(), sink.stripsSessionState());
        }
    }

    /** Writes packets that get no response of their own (COM_STMT_CLOSE, continuation packets). */
    public void write(ByteBuf packets, boolean flush) {
        if (closed) {
            packets.release();
            return;
        }
        if (flush) {
            channel.writeAndFlush(packets, channel.voidPromise());
        } else {
            channel.write(packets, channel.voidPromise());
        }
    }

    public void flush() {
        channel.flush();
    }

    /** Whether the socket takes more bytes now; when not, {@code action} runs once it does again. */
    public boolean isWritable(Runnable action) {
        if (channel.isWritable()) {
            return true;
        }
        writable = action;
        return false;
    }

    void writabilityChanged() {
        if (channel.isWritable()) {
            Runnable action = writable;
            writable = () -> { };
            action.run();
        }
    }

    /** Stops (or resumes) reading from the server: the client cannot take more bytes right now. */
    public void pauseReading(boolean pause) {
        channel.config().setAutoRead(!pause);
    }

    public void close() {
        if (!closed) {
            closed = true;
            closedByUs = true;
            channel.close();
        }
    }

    /**
     * What to do when the server ends the connection while it owes no response (KILL, a restart,
     * wait_timeout): nobody's sink hears of it otherwise.
     */
    public void onLostWhileIdle(Runnable action) {
        this.lostWhileIdle = action;
    }

    /** Bytes from the server, in command phase. Takes ownership of {@code msg}. */
    void onRead(ByteBuf msg) {
        ByteBuf buf = msg;
        if (unsettled != null) {
            buf = channel.alloc().buffer(unsettled.readableBytes() + msg.readableBytes());
            buf.writeBytes(unsettled).writeBytes(msg);
            unsettled.release();
            unsettled = null;
            msg.release();
        }
        try {
            while (buf.isReadable()) {
                Pending head = inFlight.peekFirst();
                if (head == null) {
                    unsolicited(buf);
                    return;
                }
                int from = buf.readerIndex();
                int settled = tracker.scan(buf, from, buf.writerIndex());
                int rewrite = tracker.takeRewrite();
                if (rewrite >= 0) {
                    // An OK reporting session state the client did not ask for: everything before
                    // it passes as it is, the OK itself as the server would have sent it to that client.
                    if (rewrite > from) {
                        head.sink().onBytes(buf.retainedSlice(from, rewrite - from));
                    }
                    head.sink().onBytes(OkPacket.withoutSessionState(buf, rewrite, channel.alloc()));
                } else if (settled > from) {
                    head.sink().onBytes(buf.retainedSlice(from, settled - from));
                }
                buf.readerIndex(settled);
                if (!tracker.isComplete()) {
                    if (rewrite >= 0) {
                        continue;
                    }
                    break;
                }
                inFlight.pollFirst();
                head.sink().onComplete(this, tracker);
                Pending next = inFlight.peekFirst();
                if (next != null) {
                    tracker.expect(next.kind(), next.sink().listener(), next.sink().stripsSessionState());
                } else {
                    tracker.reset();
                }
            }
            if (buf.isReadable()) {
                unsettled = channel.alloc().buffer(buf.readableBytes()).writeBytes(buf);
            }
        } finally {
            buf.release();
        }
    }

    void onReadComplete() {
        // Every sink that took bytes in this batch gets the hint; in practice that is the head.
        Pending head = inFlight.peekFirst();
        if (head != null) {
            head.sink().onReadBatchComplete();
        }
    }

    /** A packet while nothing was asked: the server is closing us (shutdown, KILL, timeout). */
    private void unsolicited(ByteBuf buf) {
        closed = true;
        channel.close();
    }

    /** The connection is gone: every response still owed fails. */
    void onClosed(Throwable cause) {
        closed = true;
        if (unsettled != null) {
            unsettled.release();
            unsettled = null;
        }
        if (inFlight.isEmpty()) {
            if (!closedByUs) {
                lostWhileIdle.run();
            }
            return;
        }
        Pending p;
        while ((p = inFlight.pollFirst()) != null) {
            p.sink().onFailure(this, cause);
        }
    }

    @Override
    public String toString() {
        return "backend " + nodeName + " #" + greeting.connectionId();
    }
}
