package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;

/** A listener that passes everything on to another; subclasses add to the calls they care about. */
abstract class ForwardingListener implements CommandListener {
    /** {@code then}, with {@code first} told of each complete answer just before it is. */
    static CommandListener completingFirst(CommandListener then, Consumer<ResponseTracker> first) {
        return new ForwardingListener() {
            @Override
            protected CommandListener delegate() {
                return then;
            }

            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                first.accept(tracker);
                then.onComplete(backend, tracker);
            }
        };
    }

    /** Where calls go; may change from one command to the next. */
    protected abstract CommandListener delegate();

    @Override
    public void onOk(ByteBuf buf, int payloadIndex, int length) {
        delegate().onOk(buf, payloadIndex, length);
    }

    @Override
    public void onSessionStateNotSent() {
        delegate().onSessionStateNotSent();
    }

    @Override
    public void onError(ByteBuf buf, int payloadIndex, int length) {
        delegate().onError(buf, payloadIndex, length);
    }

    @Override
    public void onPrepareOk(ByteBuf buf, int payloadIndex, int length) {
        delegate().onPrepareOk(buf, payloadIndex, length);
    }

    @Override
    public void onLocalInfileRequest(ByteBuf buf, int payloadIndex, int length) {
        delegate().onLocalInfileRequest(buf, payloadIndex, length);
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        delegate().onComplete(backend, tracker);
    }

    @Override
    public void onFailure(BackendConnection backend, Throwable cause) {
        delegate().onFailure(backend, cause);
    }
}
