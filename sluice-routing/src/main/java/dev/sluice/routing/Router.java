package dev.sluice.routing;

import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Hint;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementKind;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.routing.topology.Node;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where each statement goes (BEHAVIOUR §2–§6): a pure function of the statement, the session, the
 * endpoint view and the current load. No I/O, no clock, no thread; it never changes the session
 * (the server reports what it did through {@link RoutingSession#onStatementSent}). The only state
 * it touches is the endpoint's shared round-robin counter, which is what balancing means.
 *
 * <p>Read-write rules, first match wins: Sluice's own function; session commands to every backend
 * (hints ignored); unparsed text, pinned sessions and FORCE_MASTER to the primary; SHOW WARNINGS &amp;
 * co. to the previous target, unless they also write; transaction control, writes, locking reads,
 * SELECT … INTO, sequences, this connection's own state (user variables, LAST_INSERT_ID, user
 * locks), server-specific SHOWs, LOCK TABLES in force, temporary tables and transactions (unless
 * split) to the primary; stored function calls to the primary unless FORCE_SLAVE; everything else
 * is a read for {@link ReadSelection}. Read-only endpoints: {@link ReadOnlyRouting}.
 */
public final class Router {

    private static final RouteDecision LAST_GTID = new RouteDecision.AnswerLocally(LocalAnswer.LAST_GTID);
    private static final RouteDecision ALL_BACKENDS = new RouteDecision.ToAllBackends(RouteReason.SESSION_COMMAND);

    private Router() {
    }

    /** Routes a COM_QUERY statement. */
    public static RouteDecision route(Statement statement, RoutingSession session, EndpointView view,
                                      ActiveRequests load) {
        return route(statement, session, view, load, false, null);
    }

    /**
     * Routes a COM_STMT_EXECUTE by the prepared text's statement: like {@link #route}, except that
     * a session command stays on the primary (BEHAVIOUR §3: SET NAMES through the prepared protocol).
     */
    public static RouteDecision routeExecute(Statement prepared, RoutingSession session, EndpointView view,
                                             ActiveRequests load) {
        return route(prepared, session, view, load, true, null);
    }

    /**
     * Second step of a global-consistency read, after {@link RouteDecision.NeedPrimaryPosition}:
     * the same routing with the primary's position (fetched by the server) as the requirement.
     */
    public static RouteDecision routeAtPrimaryPosition(Statement statement, RoutingSession session,
                                                       EndpointView view, ActiveRequests load,
                                                       GtidPosition primaryPosition) {
        return route(statement, session, view, load, false, primaryPosition);
    }

    /**
     * Read-only endpoints: the replica a new client connection is mapped to (weighted round-robin,
     * BEHAVIOUR §1), or a {@link RouteDecision.Reject} the server sends before closing the connection.
     */
    public static RouteDecision connect(RoutingSession session, EndpointView view) {
        return ReadOnlyRouting.connect(session, view);
    }

    private static RouteDecision route(Statement s, RoutingSession session, EndpointView view, ActiveRequests load,
                                       boolean prepared, GtidPosition primaryPosition) {
        if (view.policy().mode() == EndpointMode.READ_ONLY) {
            return ReadOnlyRouting.route(s, session, view, prepared);
        }
        if (s.has(StatementProperty.SLUICE_LAST_GTID)) {
            return LAST_GTID;
        }
        if (s.isSessionCommand()) {
            if (prepared) {
                return RouteDecision.primary(RouteReason.PREPARED_SESSION_COMMAND);
            }
            return session.pinnedToPrimary() || s.has(StatementProperty.PINS_SESSION)
                    ? RouteDecision.primary(RouteReason.PINNED) : ALL_BACKENDS;
        }
        StatementKind kind = s.kind();
        if (s.has(StatementProperty.MALFORMED) || kind == StatementKind.UNKNOWN || kind == StatementKind.EMPTY) {
            return RouteDecision.primary(RouteReason.UNPARSED);
        }
        if (session.pinnedToPrimary() || s.has(StatementProperty.PINS_SESSION)) {
            return RouteDecision.primary(RouteReason.PINNED);
        }
        if (s.hint() == Hint.FORCE_MASTER) {
            return RouteDecision.primary(RouteReason.HINT);
        }
        if (s.has(StatementProperty.PREVIOUS_TARGET) && onlyAsksAboutThePreviousStatement(s)) {
            return previousTarget(session, view);
        }
        if (kind == StatementKind.TRANSACTION || kind == StatementKind.XA) {
            return RouteDecision.primary(RouteReason.TRANSACTION_CONTROL);
        }
        if (kind == StatementKind.SET_USER_VARIABLE) {
            // SET @t = (SELECT trace FROM information_schema.optimizer_trace) keeps the trace of the
            // statement before it, which ran where that one ran; its values then reach every backend.
            // A prepared one's values are not read back, so it stays on the primary with them.
            if (!prepared && s.has(StatementProperty.PREVIOUS_TARGET) && !s.has(StatementProperty.STORED_FUNCTION)
                    && !s.has(StatementProperty.LAST_INSERT_ID) && !s.has(StatementProperty.LOCKING_FUNCTION)
                    && !s.has(StatementProperty.SEQUENCE) && !s.has(StatementProperty.LOCKING_READ)
                    && !session.inTransaction()) {
                return previousTarget(session, view);
            }
            return RouteDecision.primary(RouteReason.USER_VARIABLES);
        }
        if (!kind.isRead() || s.has(StatementProperty.LOCKING_READ) || s.has(StatementProperty.SELECT_INTO)
                || s.has(StatementProperty.SEQUENCE)) {
            return RouteDecision.primary(RouteReason.WRITE);
        }
        // User variables set by SET reach every backend as literals (BEHAVIOUR §3): a read of them may go
        // to a replica, unless one was assigned another way (SELECT @v := …, … INTO @v, stored code
        // such as a trigger) and lives on the primary only.
        if ((s.has(StatementProperty.USER_VARIABLE_READ) && session.userVariableReadsOnPrimary())
                || s.has(StatementProperty.USER_VARIABLE_WRITE)
                || s.has(StatementProperty.LAST_INSERT_ID) || s.has(StatementProperty.LOCKING_FUNCTION)) {
            return RouteDecision.primary(RouteReason.SESSION_DEPENDENT);
        }
        if (s.has(StatementProperty.NODE_SPECIFIC)) {
            return RouteDecision.primary(RouteReason.NODE_SPECIFIC);
        }
        if (session.tablesLocked()) {
            return RouteDecision.primary(RouteReason.LOCKED_TABLES);
        }
        if (session.touchesTemporaryTable(s)) {
            return RouteDecision.primary(RouteReason.TEMPORARY_TABLE);
        }
        RouteReason readReason = RouteReason.READ;
        if (session.inTransaction()) {
            if (!view.policy().transactionSplitting() || !session.transactionSplittable()) {
                return RouteDecision.primary(RouteReason.IN_TRANSACTION);
            }
            readReason = RouteReason.TRANSACTION_SPLIT;
        }
        // A stored function that ran on the primary may have set session variables there alone
        // (BEHAVIOUR §3); a hint naming a replica is taken at its word.
        if (s.has(StatementProperty.SESSION_VARIABLE_READ) && session.sessionVariableReadsOnPrimary()
                && s.hint() != Hint.FORCE_SLAVE) {
            return RouteDecision.primary(RouteReason.SESSION_DEPENDENT);
        }
        if (s.has(StatementProperty.STORED_FUNCTION) && s.hint() != Hint.FORCE_SLAVE) {
            return RouteDecision.primary(RouteReason.STORED_FUNCTION);
        }
        return ReadSelection.select(s, session, view, load, readReason, primaryPosition);
    }

    /**
     * Whether a statement that asks about the previous one (SHOW WARNINGS, FOUND_ROWS(), ROW_COUNT(),
     * {@code @@warning_count}, GET DIAGNOSTICS) does nothing else. One that also writes, locks or
     * assigns ({@code UPDATE t SET n = ROW_COUNT()}, {@code SELECT FOUND_ROWS() INTO @n},
     * {@code SELECT @n := FOUND_ROWS()}) is routed
     * by the write rule below: to the primary, never to the replica that ran the previous read.
     * GET DIAGNOSTICS is no read kind, yet it only reports on the previous statement.
     */
    private static boolean onlyAsksAboutThePreviousStatement(Statement s) {
        if (s.kind() == StatementKind.DIAGNOSTICS) {
            return true;
        }
        return s.kind().isRead() && !s.has(StatementProperty.LOCKING_READ) && !s.has(StatementProperty.SELECT_INTO)
                && !s.has(StatementProperty.SEQUENCE) && !s.has(StatementProperty.USER_VARIABLE_WRITE);
    }

    /** SHOW WARNINGS, FOUND_ROWS(), …: where the previous statement ran, if that node is still there. */
    private static RouteDecision previousTarget(RoutingSession session, EndpointView view) {
        OptionalInt previous = session.previousReplica();
        if (previous.isPresent()) {
            Optional<Node> node = view.topology().node(previous.getAsInt());
            if (node.isPresent() && node.get().state().reachable()) {
                return RouteDecision.replica(previous.getAsInt(), RouteReason.PREVIOUS_TARGET);
            }
        }
        return RouteDecision.primary(RouteReason.PREVIOUS_TARGET);
    }
}
