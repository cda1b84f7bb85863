package dev.sluice.routing;

import dev.sluice.routing.balance.Balancer;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.routing.sql.TableName;
import dev.sluice.routing.topology.Node;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * BEHAVIOUR §1 read-only endpoints: each client connection is mapped to one replica at connect time by
 * weighted round-robin, and everything it sends goes there; writes get a clear error. When that
 * replica leaves (removed, unreachable, or drained and the session is at a transaction boundary)
 * the connection moves to another one without an error (BEHAVIOUR §8). The replica's own
 * {@code read_only} remains the last line of defence for what the classifier cannot see (CALL,
 * EXECUTE).
 */
final class ReadOnlyRouting {

    private static final RouteDecision LAST_GTID = new RouteDecision.AnswerLocally(LocalAnswer.LAST_GTID);

    private ReadOnlyRouting() {
    }

    static RouteDecision connect(RoutingSession session, EndpointView view) {
        int picked = pick(session, view);
        if (picked < 0) {
            return new RouteDecision.Reject(RouteError.noReplica(view.policy().name()), RouteReason.NO_REPLICA);
        }
        return RouteDecision.replica(picked, RouteReason.CONNECTION_REPLICA);
    }

    /**
     * @param prepared a COM_STMT_EXECUTE: a session command then runs on the connection's replica
     *     alone (the binary protocol has no "every backend"), never on the primary
     */
    static RouteDecision route(Statement s, RoutingSession session, EndpointView view, boolean prepared) {
        if (s.has(StatementProperty.SLUICE_LAST_GTID)) {
            return LAST_GTID;
        }
        if (writes(s, session)) {
            return new RouteDecision.Reject(RouteError.readOnlyEndpoint(view.policy().name()),
                    RouteReason.READ_ONLY_ENDPOINT);
        }
        RouteReason reason = RouteReason.CONNECTION_REPLICA;
        int target = current(session, view);
        if (target < 0) {
            target = pick(session, view);
            reason = RouteReason.CONNECTION_REPLICA_MOVED;
            if (target < 0) {
                return new RouteDecision.Reject(RouteError.noReplica(view.policy().name()), RouteReason.NO_REPLICA);
            }
        }
        if (s.isSessionCommand()) {
            return prepared ? RouteDecision.replica(target, RouteReason.PREPARED_SESSION_COMMAND)
                    : new RouteDecision.ToAllBackends(RouteReason.SESSION_COMMAND);
        }
        return RouteDecision.replica(target, reason);
    }

    /** The connection's replica if it can still serve: usable, or reachable inside an open transaction. */
    private static int current(RoutingSession session, EndpointView view) {
        OptionalInt assigned = session.connectionReplica();
        if (assigned.isEmpty()) {
            return -1;
        }
        int id = assigned.getAsInt();
        int p = view.positionOf(id);
        if (p < 0) {
            return -1;
        }
        if ((view.usableReplicaMask() & (1L << p)) != 0) {
            return id;
        }
        Optional<Node> node = view.topology().node(id);
        boolean finishTransaction = session.inTransaction() && node.isPresent() && node.get().state().reachable();
        return finishTransaction ? id : -1;
    }

    private static int pick(RoutingSession session, EndpointView view) {
        int[] ids = view.nodeIds();
        long candidates = 0;
        for (long rest = view.usableReplicaMask(); rest != 0; rest &= rest - 1) {
            int p = Long.numberOfTrailingZeros(rest);
            if (session.weightOf(ids[p]) > 0) {
                candidates |= 1L << p;
            }
        }
        int p = view.roundRobin().pick(ids, view.preferredZone(candidates), session,
                dev.sluice.routing.balance.ActiveRequests.NONE);
        return p == Balancer.NO_PICK ? -1 : ids[p];
    }

    /** Statements that change data or the server; temporary tables are the session's own and allowed. */
    private static boolean writes(Statement s, RoutingSession session) {
        if (s.has(StatementProperty.SEQUENCE)) {
            return true;
        }
        return switch (s.kind()) {
            case INSERT, UPDATE, DELETE, REPLACE, LOAD, EXPLAIN_WRITE, ADMINISTRATION -> true;
            case DDL -> !temporaryTableDdl(s, session);
            default -> false;
        };
    }

    private static boolean temporaryTableDdl(Statement s, RoutingSession session) {
        if (!s.temporaryTablesCreated().isEmpty()) {
            return true;
        }
        if (s.tablesDropped().isEmpty()) {
            return false;
        }
        for (TableName dropped : s.tablesDropped()) {
            if (session.temporaryTables().stream().noneMatch(t -> t.sameTableAs(dropped))) {
                return false;
            }
        }
        return true;
    }
}
