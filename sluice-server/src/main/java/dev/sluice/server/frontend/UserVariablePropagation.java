package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.SessionCommand;
import dev.sluice.routing.sql.TableName;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.InternalQuery;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * After a {@code SET @v = expr} answered on the primary: reads the values it produced there, sets
 * them as literals on every other backend of the session, and keeps that literal SET in the replay
 * history for backends opened later (see {@link UserVariableLiterals}). The client already has its
 * answer; its next command waits until the values are on their way, so that a read of {@code @v}
 * on a replica finds them. A backend that refuses them leaves the session; when the values cannot
 * be read, the session's reads of user variables stay on the primary.
 */
final class UserVariablePropagation extends ForwardingListener {
    /** How the replay history names a user variable, as SET statements of the client do. */
    private static final String USER_VARIABLE_PREFIX = "@";

    private final CurrentCommand command;
    private final BackgroundAnswers background;
    private final RoutingSession routing;
    private final SessionBackends backends;
    private final List<String> names;
    private final CommandListener own;

    UserVariablePropagation(CurrentCommand command, BackgroundAnswers background, RoutingSession routing,
            SessionBackends backends, List<String> names, CommandListener own) {
        this.command = command;
        this.background = background;
        this.routing = routing;
        this.backends = backends;
        this.names = names;
        this.own = own;
    }

    @Override
    protected CommandListener delegate() {
        return own;
    }

    @Override
    public void onComplete(BackendConnection primary, ResponseTracker tracker) {
        super.onComplete(primary, tracker);
        if (tracker.endedWithError() || command.sessionClosed()) {
            return;
        }
        command.hold();
        ClientCharset charset = routing.clientCharset();
        InternalQuery.run(primary, charset.encode(UserVariableLiterals.question(names)))
                .whenComplete((answer, error) -> primary.channel().eventLoop().execute(() -> {
                    Optional<String> assignment = error == null ? UserVariableLiterals.assignment(names, answer)
                            : Optional.empty();
                    if (command.sessionClosed()) {
                        return;
                    }
                    if (assignment.isEmpty()) {
                        routing.userVariablesDiverged();
                    } else {
                        giveToOthers(primary, new SessionCommand(assignment.get(), variables(), false, true, charset));
                    }
                    command.done();
                    command.resume();
                }));
    }

    private void giveToOthers(BackendConnection primary, SessionCommand assignment) {
        for (BackendConnection other : backends.all()) {
            if (other != primary) {
                other.send(InternalQuery.queryPacket(other.channel().alloc().buffer(), assignment.bytes()),
                        ResponseKind.RESULT, new SessionCommandSink(background));
            }
        }
        routing.record(assignment);
    }

    private Set<String> variables() {
        return names.stream().map(n -> USER_VARIABLE_PREFIX + TableName.lowerAscii(n)).collect(Collectors.toSet());
    }
}
