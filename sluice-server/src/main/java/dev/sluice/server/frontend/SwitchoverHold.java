package dev.sluice.server.frontend;

import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.LockCause;
import dev.sluice.routing.sql.TableName;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.runtime.PrimaryHold;
import dev.sluice.server.runtime.SessionStanding;
import java.util.ArrayList;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * One session's part in a switchover (BEHAVIOUR §10). While the proxy's {@link PrimaryHold} is in
 * force, a command for the primary that would start something there — a transaction, an
 * autocommit write, a session command — waits, and runs when the hold ends, on whichever node is
 * the primary then. What must finish on the old primary goes on: the statements of a transaction
 * open there, and those of a session holding something that cannot move (it may be releasing it).
 *
 * <p>The session's state moves by itself: once the old primary's connection is closed
 * ({@link #leaveFormerPrimary}), the next command for the primary opens a connection to the new
 * one, which replays the session's state, and prepared statements are prepared again there under
 * the client's ids. What no replay carries is reported as {@linkplain #standing unmovable}.
 */
final class SwitchoverHold {
    private final long connectionId;
    private final PrimaryHold hold;
    private final CurrentCommand command;
    private final RoutingSession routing;
    private final DeferredBegin deferredBegin;
    private final SessionBackends backends;
    private final EventLoop loop;
    private final LostTransaction lost;

    SwitchoverHold(long connectionId, PrimaryHold hold, CurrentCommand command, RoutingSession routing,
            DeferredBegin deferredBegin, SessionBackends backends, EventLoop loop, LostTransaction lost) {
        this.lost = lost;
        this.connectionId = connectionId;
        this.hold = hold;
        this.command = command;
        this.routing = routing;
        this.deferredBegin = deferredBegin;
        this.backends = backends;
        this.loop = loop;
    }

    /** True when {@code c} was parked: {@code run} runs it again, whole, when the hold ends. */
    boolean parks(RoutedCommand c, Consumer<RoutedCommand> run) {
        if (!hold.holding() || onReplicaOnly() || !forPrimary(c.decision()) || mustFinishHere()) {
            return false;
        }
        command.hold();
        hold.park(loop, () -> {
            if (command.sessionClosed()) {
                c.release();
            } else {
                run.accept(c);
            }
        });
        return true;
    }

    /** A read-only endpoint's session lives on its one replica (BEHAVIOUR §1): a switchover does not concern it. */
    private boolean onReplicaOnly() {
        return routing.connectionReplica().isPresent();
    }

    private static boolean forPrimary(RouteDecision d) {
        return d instanceof RouteDecision.ToPrimary || d instanceof RouteDecision.ToAllBackends;
    }

    /** Statements that belong to the old primary: an open transaction's, or those of a session holding what cannot move. */
    private boolean mustFinishHere() {
        return transactionOpenOnPrimary() || !unmovable().isEmpty();
    }

    /**
     * A split transaction whose BEGIN is still held has not reached the primary: its first write
     * starts it. A transaction lost with its primary connection is over: the session's next
     * command ends it ({@link LostTransaction}), so it holds no switchover up meanwhile.
     */
    private boolean transactionOpenOnPrimary() {
        return routing.transactionOpen() && !deferredBegin.isHeld() && !lost.pending();
    }

    /** Where the session stands toward {@code primaryId}; on the session's loop. */
    SessionStanding standing(int primaryId) {
        if (onReplicaOnly()) {
            return SessionStanding.gone(connectionId);
        }
        return new SessionStanding(connectionId, transactionOpenOnPrimary(), backends.busyOn(primaryId), unmovable());
    }

    /**
     * What lives on the primary's connection only and would be lost on another. A named lock is
     * counted from the first GET_LOCK on: Sluice does not see it released.
     */
    private List<String> unmovable() {
        List<String> out = new ArrayList<>(4);
        if (routing.tablesLocked()) {
            out.add("LOCK TABLES");
        }
        List<TableName> temporary = routing.temporaryTables();
        if (!temporary.isEmpty()) {
            out.add("temporary tables " + temporary.stream().map(TableName::toString).collect(Collectors.joining(", ")));
        }
        if (routing.lockCauses().contains(LockCause.GET_LOCK)) {
            out.add("a named lock (GET_LOCK)");
        }
        if (routing.userVariablesOnPrimaryOnly()) {
            out.add("user variables assigned on the primary");
        }
        return out;
    }

    /** Closes the session's idle connection to the node that was the primary. */
    void leaveFormerPrimary(int nodeId) {
        BackendConnection b = backends.ready(nodeId);
        if (b != null && b.pendingResponses() == 0) {
            backends.remove(b);
        }
    }
}
