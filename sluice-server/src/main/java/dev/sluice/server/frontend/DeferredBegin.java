package dev.sluice.server.frontend;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.session.RoutingSession;
import io.netty.buffer.ByteBuf;

/**
 * Transaction splitting (BEHAVIOUR §6): the client's BEGIN, answered by Sluice and held back until
 * the transaction's first write, when it is sent to the primary just before that write. A split
 * transaction that never writes never reaches the primary: its COMMIT or ROLLBACK is answered by
 * Sluice too, and the held packet is simply released.
 */
final class DeferredBegin {
    private final LocalAnswers answers;
    private final ClientStatus status;
    private final RoutingSession routing;
    private final Runnable atBoundary;
    private ByteBuf begin;

    /** {@code atBoundary} runs once a transaction that never wrote has ended. */
    DeferredBegin(LocalAnswers answers, ClientStatus status, RoutingSession routing, Runnable atBoundary) {
        this.answers = answers;
        this.status = status;
        this.routing = routing;
        this.atBoundary = atBoundary;
    }

    /** Holds the client's BEGIN and answers it: the client is in a transaction, the primary not yet. */
    void defer(ByteBuf packet) {
        hold(packet);
        answerOk(status.flags() | ServerStatus.IN_TRANS);
    }

    /** COMMIT or ROLLBACK of a split transaction that never reached the primary. */
    void endUnwritten() {
        release();
        answerOk(status.flags() & ~ServerStatus.IN_TRANS);
        atBoundary.run();
    }

    private void answerOk(int flags) {
        answers.answeredOk(flags);
        answers.ok();
        routing.onResponse(status.flags());
    }

    /** Holds {@code packet}, replacing (and releasing) one held before. */
    private void hold(ByteBuf packet) {
        release();
        begin = packet;
    }

    boolean isHeld() {
        return begin != null;
    }

    /** The held BEGIN, to send before the transaction's first statement on the primary; nothing is held afterwards. */
    ByteBuf take() {
        ByteBuf b = begin;
        begin = null;
        return b;
    }

    void release() {
        if (begin != null) {
            begin.release();
            begin = null;
        }
    }
}
