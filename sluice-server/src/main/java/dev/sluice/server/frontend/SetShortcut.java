package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.policy.ConnectionPoolMode;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Statement;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.runtime.EndpointRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Optional;

/**
 * A pooled session's SET answered without a backend, from what a backend answered to the same SET
 * from the same state (see {@link dev.sluice.server.pool.SetAnswers}) — when the session has no
 * backend connection yet, which is where a driver's connect-time SET finds it. The SET joins the
 * session's replay history like any other, and reaches a connection with the rest of the state
 * when one is needed; a pooled connection already in that state takes it as it is (BEHAVIOUR §7).
 */
final class SetShortcut {
    private final EndpointRuntime endpoint;
    private final RoutingSession routing;
    private final SessionBackends backends;
    private final DeferredBegin deferredBegin;
    private final LocalAnswers answers;
    private final ClientReplies replies;
    private final SluiceMetrics metrics;

    SetShortcut(EndpointRuntime endpoint, RoutingSession routing, SessionBackends backends,
            DeferredBegin deferredBegin, LocalAnswers answers, ClientReplies replies, SluiceMetrics metrics) {
        this.endpoint = endpoint;
        this.routing = routing;
        this.backends = backends;
        this.deferredBegin = deferredBegin;
        this.answers = answers;
        this.replies = replies;
        this.metrics = metrics;
    }

    /** A replayed SET, outside any transaction, on a pooled endpoint. */
    private boolean eligible(Statement statement) {
        return endpoint.config().policy().connectionPool() != ConnectionPoolMode.NONE
                && Traceless.replayedSessionCommand(statement)
                && !routing.inTransaction() && routing.atTransactionBoundary() && !routing.pinnedToPrimary()
                && !deferredBegin.isHeld();
    }

    /** Answers the session command without a backend when it can; true when the client has its answer. */
    boolean answer(Statement statement, RouteDecision decision, ByteBuf frame) {
        if (!eligible(statement) || !backends.isEmpty()) {
            return false;
        }
        Optional<byte[]> known = backends.setAnswers().answer(backends.poolKey(), backends.stateTag(),
                statement.sessionCommand().get().sql());
        if (known.isEmpty()) {
            return false;
        }
        byte[] ok = known.get();
        frame.release();
        routing.onStatementSent(statement, decision);
        metrics.statementRouted(endpoint.name(), null, "local", decision.reason().metricName());
        int status = OkPacket.statusFlagsOf(Unpooled.wrappedBuffer(ok), replies.capabilities());
        ByteBuf out = replies.alloc().buffer(Packets.HEADER_SIZE + ok.length);
        out.writeMediumLE(ok.length).writeByte(replies.sequence()).writeBytes(ok);
        answers.answeredOk(status);
        replies.send(out);
        routing.onResponse(status);
        return true;
    }

    /** {@code then}, learning on the way the answer of {@code statement} when it is one to learn. */
    CommandListener learning(Statement statement, CommandListener then) {
        if (!eligible(statement)) {
            return then;
        }
        var key = backends.poolKey();
        String stateTag = backends.stateTag();
        String sql = statement.sessionCommand().get().sql();
        long capabilities = replies.capabilities();
        return new ForwardingListener() {
            private byte[] ok;
            private boolean single = true;

            @Override
            protected CommandListener delegate() {
                return then;
            }

            @Override
            public void onOk(ByteBuf buf, int payloadIndex, int length) {
                single = ok == null;
                // What the client gets: without the session state it did not ask for.
                ok = ByteBufUtil.getBytes(buf, payloadIndex, length);
                if (!Capabilities.has(capabilities, Capabilities.CLIENT_SESSION_TRACK)) {
                    ok = OkPacket.payloadWithoutSessionState(ok);
                }
                super.onOk(buf, payloadIndex, length);
            }

            @Override
            public void onComplete(BackendConnection backend, ResponseTracker tracker) {
                if (!tracker.endedWithError() && single && ok != null && repeatable(ok, capabilities)) {
                    backends.setAnswers().learn(key, stateTag, sql, ok);
                }
                super.onComplete(backend, tracker);
            }
        };
    }

    /** A plain OK that any connection in the same state gives: no warnings, no transaction, nothing more to come. */
    private static boolean repeatable(byte[] ok, long capabilities) {
        try {
            ByteBuf payload = Unpooled.wrappedBuffer(ok);
            int status = OkPacket.statusFlagsOf(payload, capabilities);
            return ok.length > 0 && ok[0] == OkPacket.HEADER && OkPacket.warningsOf(payload, capabilities) == 0
                    && !ServerStatus.has(status, ServerStatus.IN_TRANS)
                    && !ServerStatus.has(status, ServerStatus.MORE_RESULTS_EXISTS);
        } catch (dev.sluice.protocol.MalformedPacketException malformed) {
            return false;
        }
    }
}
