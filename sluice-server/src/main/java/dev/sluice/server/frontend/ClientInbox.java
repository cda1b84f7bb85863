package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.server.backend.BackendConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The client's frames, taken in order by the session's {@link SessionPhase}: commands one at a
 * time (a client that pipelines waits in the queue until the answer before has ended), the
 * frames that continue a command (the rest of a 16 MB+ packet, LOCAL INFILE data) as they come,
 * and an answer to Sluice's own authentication request. Every phase change of a session happens
 * here; a transition does not take frames by itself: whoever changed the phase calls
 * {@link #drain()} once its own work is done. CLOSED is final: a backend's answer that completes
 * after the session ended (later in the same read) changes nothing, and frames that come then
 * are released at once, never queued.
 *
 * <p>Both directions of backpressure on the client's socket are decided here too: beyond
 * {@link #MAX_QUEUED_FRAMES} queued frames, or while the backend an upload goes to cannot take
 * more, the client is not read.
 */
final class ClientInbox {
    /** Beyond this many queued frames the client is not read until the queue drains to half. */
    static final int MAX_QUEUED_FRAMES = 64;

    private final Channel client;
    private final Consumer<ByteBuf> commands;
    private final ArrayDeque<ByteBuf> frames = new ArrayDeque<>();
    private SessionPhase phase = SessionPhase.IDLE;
    /** Where the frames of SENDING_TAIL and UPLOADING go. */
    private BackendConnection target;
    /** What follows SENDING_TAIL: RUNNING when the command's answer is due, IDLE when it has none. */
    private SessionPhase afterTail = SessionPhase.IDLE;
    private Consumer<ByteBuf> authentication;
    /** The sequence id of Sluice's next packet to the client: one past the client's last frame taken. */
    private int replySequence;
    private boolean queueFull;
    private boolean uploadBlocked;
    /** Told each time the session is left idle with nothing queued, once someone needs to know; else null. */
    private Runnable idleWatch;

    /** {@code commands} starts each command frame taken; it owns the frame. */
    ClientInbox(Channel client, Consumer<ByteBuf> commands) {
        this.client = client;
        this.commands = commands;
    }

    SessionPhase phase() {
        return phase;
    }

    int replySequence() {
        return replySequence;
    }

    /** Sluice refuses a frame that never became a command: its answer takes that frame's sequence. */
    void replyTo(int sequenceId) {
        replySequence = sequenceId & Packets.SEQUENCE_MASK;
    }

    boolean isEmpty() {
        return frames.isEmpty();
    }

    /** A client command is running: sent, or on its way (waiting for a backend, a wait, a lookup). */
    boolean commandRunning() {
        return switch (phase) {
            case RUNNING, UPLOADING, AUTHENTICATING -> true;
            case SENDING_TAIL -> afterTail == SessionPhase.RUNNING;
            case IDLE, CLOSED -> false;
        };
    }

    /** Whether the client's frames go to {@code backend} (LOCAL INFILE data, the rest of a 16 MB+ packet). */
    boolean streamsTo(BackendConnection backend) {
        return (phase == SessionPhase.SENDING_TAIL || phase == SessionPhase.UPLOADING) && target == backend;
    }

    /** No upload and no 16 MB+ packet under way. */
    boolean nothingInTransit() {
        return phase != SessionPhase.SENDING_TAIL && phase != SessionPhase.UPLOADING;
    }

    // ---- transitions ------------------------------------------------------------------------

    /** The current command runs (or waits for what it needs before it is sent). */
    void running() {
        if (phase != SessionPhase.CLOSED) {
            phase = SessionPhase.RUNNING;
        }
    }

    /** The current command has ended: the next frame may start another. */
    void idle() {
        if (phase != SessionPhase.CLOSED) {
            phase = SessionPhase.IDLE;
            target = null;
        }
    }

    /** The command's first frame went to {@code backend}; the rest of its packet follows it there. */
    void sendingTail(BackendConnection backend, boolean answerDue) {
        if (phase == SessionPhase.CLOSED) {
            return;
        }
        phase = SessionPhase.SENDING_TAIL;
        target = backend;
        afterTail = answerDue ? SessionPhase.RUNNING : SessionPhase.IDLE;
    }

    /** The server asked for the client's LOCAL INFILE file: its data goes to {@code backend}. */
    void uploading(BackendConnection backend) {
        if (phase == SessionPhase.CLOSED) {
            return;
        }
        phase = SessionPhase.UPLOADING;
        target = backend;
    }

    /** The next frame answers Sluice's authentication request; {@code step} takes it and goes on. */
    void authenticating(Consumer<ByteBuf> step) {
        if (phase == SessionPhase.CLOSED) {
            return;
        }
        phase = SessionPhase.AUTHENTICATING;
        authentication = step;
    }

    /** The session has ended: queued frames are dropped, later ones too. */
    void close() {
        phase = SessionPhase.CLOSED;
        target = null;
        authentication = null;
        ByteBuf f;
        while ((f = frames.pollFirst()) != null) {
            f.release();
        }
    }

    // ---- frames in --------------------------------------------------------------------------

    /** A physical packet from the client (header included); the inbox owns it. */
    void add(ByteBuf frame) {
        if (phase == SessionPhase.CLOSED) {
            frame.release();
            return;
        }
        frames.addLast(frame);
        drain();
        if (frames.size() > MAX_QUEUED_FRAMES && !queueFull) {
            queueFull = true;
            updateAutoRead();
        }
    }

    /** Takes every frame the current phase allows. */
    void drain() {
        ByteBuf frame;
        while ((frame = frames.peekFirst()) != null && takes()) {
            frames.pollFirst();
            take(frame);
        }
        if (queueFull && frames.size() <= MAX_QUEUED_FRAMES / 2) {
            queueFull = false;
            updateAutoRead();
        }
        if (idleWatch != null && phase == SessionPhase.IDLE && frames.isEmpty()) {
            idleWatch.run();
        }
    }

    /**
     * {@code watch} runs whenever a drain leaves the session idle with nothing queued: every command
     * ends in a drain, so this sees each point where the session may stand between two transactions.
     */
    void watchIdle(Runnable watch) {
        idleWatch = watch;
    }

    private boolean takes() {
        return switch (phase) {
            case IDLE, SENDING_TAIL, UPLOADING, AUTHENTICATING -> true;
            case RUNNING, CLOSED -> false;
        };
    }

    private void take(ByteBuf frame) {
        switch (phase) {
            case IDLE -> {
                replySequence = nextSequence(frame);
                commands.accept(frame);
            }
            case SENDING_TAIL -> {
                replySequence = nextSequence(frame);
                BackendConnection to = target;
                if (Packets.payloadLength(frame, frame.readerIndex()) < Packets.MAX_PAYLOAD) {
                    phase = afterTail;
                    target = null;
                }
                forward(to, frame);
            }
            case UPLOADING -> {
                BackendConnection to = target;
                if (Packets.payloadLength(frame, frame.readerIndex()) == 0) {
                    // The file's end: the statement's own answer follows.
                    phase = SessionPhase.RUNNING;
                    target = null;
                }
                forward(to, frame);
            }
            case AUTHENTICATING -> {
                replySequence = nextSequence(frame);
                Consumer<ByteBuf> step = authentication;
                authentication = null;
                phase = SessionPhase.RUNNING;
                step.accept(frame);
            }
            case RUNNING, CLOSED -> throw new IllegalStateException("no frame is taken while " + phase);
        }
    }

    private static int nextSequence(ByteBuf frame) {
        return (Packets.sequenceId(frame, frame.readerIndex()) + 1) & Packets.SEQUENCE_MASK;
    }

    /**
     * Client-to-server backpressure, the mirror of the result path's: bytes the client uploads are
     * flushed as they come, and while the backend's socket is full the client is not read, so that
     * nothing piles up in Sluice.
     */
    private void forward(BackendConnection to, ByteBuf frame) {
        to.write(frame, true);
        if (uploadBlocked || to.isWritable(() -> {
            uploadBlocked = false;
            updateAutoRead();
        })) {
            return;
        }
        uploadBlocked = true;
        updateAutoRead();
    }

    private void updateAutoRead() {
        client.config().setAutoRead(!queueFull && !uploadBlocked);
    }
}
