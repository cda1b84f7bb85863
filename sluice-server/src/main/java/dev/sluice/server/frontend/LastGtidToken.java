package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Statement;
import io.netty.channel.EventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Answers {@code sluice_last_gtid()}, the session's consistency token (BEHAVIOUR §5). While the
 * session knows the GTID of its last commit, from memory. When a commit's GTID was lost (its
 * session state could not be read), the last one known is older than the session's writes: handed
 * to another connection it would let that one read rows without them, without a word. Then the
 * primary's current position, asked after the lost commit, stands in: it holds every write of the
 * session, and the session takes it as its own position again. When the primary cannot say, the
 * client gets an error, not a token that may be stale.
 */
final class LastGtidToken {
    private final EventLoop loop;
    private final CurrentCommand command;
    private final RoutingSession routing;
    private final LocalAnswers answers;
    private final Supplier<CompletableFuture<GtidPosition>> primaryPosition;

    LastGtidToken(EventLoop loop, CurrentCommand command, RoutingSession routing, LocalAnswers answers,
            Supplier<CompletableFuture<GtidPosition>> primaryPosition) {
        this.loop = loop;
        this.command = command;
        this.routing = routing;
        this.answers = answers;
        this.primaryPosition = primaryPosition;
    }

    /** Answers the current command, in the binary protocol when it is a prepared statement's EXECUTE. */
    void answer(Statement statement, boolean binary) {
        if (!routing.ownPositionUnknown()) {
            send(statement, binary);
            return;
        }
        command.hold();
        primaryPosition.get().whenComplete((position, error) -> loop.execute(() -> {
            if (command.sessionClosed()) {
                return;
            }
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                command.failed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL, "sluice_last_gtid(): the"
                        + " GTID of this session's last commit was not reported by the server, and the primary's"
                        + " position, which would stand in for it, could not be read (" + cause.getMessage()
                        + "); retry when the primary is reachable");
                return;
            }
            routing.onCommittedGtid(position);
            send(statement, binary);
            command.done();
            command.resume();
        }));
    }

    private void send(Statement statement, boolean binary) {
        if (binary) {
            answers.lastGtidBinary(statement);
        } else {
            answers.lastGtid(statement);
        }
    }
}
