package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.stream.ResponseListener;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * Streams a backend's response to the client as it arrives: each settled byte range is written
 * as a slice of the backend's own buffer (no copy) and flushed at the end of each read batch.
 * When the client cannot keep up, the backend stops being read — the whole of Sluice's overload
 * protection is that one rule: memory per session is bounded by the channel's write buffer.
 *
 * <p>One per session: a session has at most one client-bound response in flight.
 */
final class ClientForwarder implements ResponseSink {
    private final Channel client;
    private final LongSupplier capabilities;
    private final Runnable answerStarted;
    private ResponseListener listener = ResponseListener.NONE;
    private long bytesForwarded;
    private BackendConnection source;
    private BiConsumer<BackendConnection, ResponseTracker> completed;
    private Failed failed;
    private Leg leg;

    /** Where the end of a forwarded answer goes when its backend failed, {@code bytesForwarded} sent. */
    @FunctionalInterface
    interface Failed {
        void failed(BackendConnection backend, Throwable cause, long bytesForwarded);
    }

    /**
     * @param capabilities the client's, which say whether it reads the session state of OK packets
     * @param answerStarted told when the first byte of an answer goes to the client: a failure can
     *     no longer be hidden from it
     */
    ClientForwarder(Channel client, LongSupplier capabilities, Runnable answerStarted) {
        this.client = client;
        this.capabilities = capabilities;
        this.answerStarted = answerStarted;
    }

    /**
     * Arms the forwarder for the next response and returns the sink to send the command with.
     * Bytes of an earlier response still arriving from a backend the session has given up on (a
     * replica it left while the answer was on its way) must not reach the client interleaved with
     * this one: only the current leg passes anything on. The answer's end goes to {@code completed}
     * or {@code failed}.
     */
    ResponseSink begin(BackendConnection from, ResponseListener inspect,
            BiConsumer<BackendConnection, ResponseTracker> completed, Failed failed) {
        this.source = from;
        this.listener = inspect;
        this.completed = completed;
        this.failed = failed;
        this.bytesForwarded = 0;
        this.leg = new Leg();
        return leg;
    }

    /** One command's response: passes through while it is the current one, else is dropped. */
    private final class Leg implements ResponseSink {
        private boolean current() {
            return leg == this;
        }

        @Override
        public void onBytes(ByteBuf bytes) {
            if (current()) {
                ClientForwarder.this.onBytes(bytes);
            } else {
                bytes.release();
            }
        }

        @Override
        public void onComplete(BackendConnection backend, ResponseTracker tracker) {
            if (current()) {
                ClientForwarder.this.onComplete(backend, tracker);
            }
        }

        @Override
        public void onFailure(BackendConnection backend, Throwable cause) {
            if (current()) {
                ClientForwarder.this.onFailure(backend, cause);
            }
        }

        @Override
        public ResponseListener listener() {
            return current() ? ClientForwarder.this.listener() : ResponseListener.NONE;
        }

        @Override
        public void onReadBatchComplete() {
            if (current()) {
                ClientForwarder.this.onReadBatchComplete();
            }
        }

        @Override
        public boolean stripsSessionState() {
            return !Capabilities.has(capabilities.getAsLong(), Capabilities.CLIENT_SESSION_TRACK);
        }
    }

    BackendConnection source() {
        return source;
    }

    long bytesForwarded() {
        return bytesForwarded;
    }

    @Override
    public ResponseListener listener() {
        return listener;
    }

    @Override
    public void onBytes(ByteBuf bytes) {
        if (bytesForwarded == 0) {
            answerStarted.run();
        }
        bytesForwarded += bytes.readableBytes();
        client.write(bytes, client.voidPromise());
        if (!client.isWritable() && source != null) {
            source.pauseReading(true);
        }
    }

    @Override
    public void onReadBatchComplete() {
        client.flush();
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        client.flush();
        completed.accept(backend, tracker);
    }

    @Override
    public void onFailure(BackendConnection backend, Throwable cause) {
        client.flush();
        failed.failed(backend, cause, bytesForwarded);
    }

    /** The client drained its buffer: read from the backend again. */
    void clientWritable() {
        if (source != null) {
            source.pauseReading(false);
        }
    }
}
