package dev.sluice.routing.session;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.balance.WeightSource;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.IsolationLevel;
import dev.sluice.routing.sql.LockCause;
import dev.sluice.routing.sql.SessionCommand;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.routing.sql.TableFingerprint;
import dev.sluice.routing.sql.TableName;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What routing remembers about one client connection between statements.
 *
 * <p>Mutable, and touched by one thread only (the client's event loop). The router only reads it;
 * the server tells it what happened, in this order per statement:
 * <pre>
 *   decision = Router.route(statement, session, view, load)
 *   session.onStatementSent(statement, decision)        // before the bytes leave
 *   session.onResponse(statusFlags) | session.onError()  // final OK/EOF, or ERR
 *   session.onCommittedGtid(gtid)                        // when the OK carried one
 * </pre>
 * Effects that only hold if the statement succeeds (replay history, temporary tables, USE,
 * isolation level) wait for {@link #onResponse}; effects that keep reads safe (BEGIN, autocommit
 * off, pinning, pool locks) apply at once.
 *
 * <p>Node set (BEHAVIOUR §8): a session keeps the nodes and weights its endpoint had when it opened. A
 * later weight change neither adds a node to it nor removes one; a node removed from the topology
 * or drained is left at the next transaction boundary ({@link #leaveRetiredNodes}).
 */
public final class RoutingSession implements WeightSource {

    /** Weight marking a node that is not in this session's node set. */
    private static final int NOT_IN_SET = -1;
    private static final int PREVIOUS_PRIMARY = -1;
    private static final int PREVIOUS_NONE = -2;
    private static final int NO_REPLICA = -1;

    private final int[] weights;
    private final TransactionState transaction = new TransactionState();
    private final SessionHistory history = new SessionHistory();
    private final List<TableName> temporaryTables = new ArrayList<>();
    private long[] temporaryFingerprints = new long[0];
    private final EnumSet<LockCause> lockCauses = EnumSet.noneOf(LockCause.class);
    private boolean pinned;
    private int previousTarget = PREVIOUS_NONE;
    private int connectionReplica = NO_REPLICA;
    private Optional<GtidPosition> lastGtid = Optional.empty();
    /** An OK of the primary reported session state that could not be read; see {@link #onSessionStateUnreadable}. */
    private boolean ownPositionUnknown;
    private Optional<String> schema = Optional.empty();
    private Statement pending;
    private boolean pendingFromTransactionHolder = true;
    /** The character set the client's login chose; a reset goes back to it. */
    private ClientCharset loginCharset;
    private ClientCharset clientCharset;
    /** A user variable was assigned by other means than a SET whose values every backend got. */
    private boolean userVariablesOnPrimaryOnly;
    /**
     * Stored code ran on the primary (a write's triggers, a stored function, an EXECUTE): it may
     * have assigned user variables there that no other backend got, and Sluice cannot see which.
     */
    private boolean storedCodeRanOnPrimary;
    /**
     * A stored function ran on the primary: its body may have set session variables there
     * ({@code SET @@sort_buffer_size = i}) that Sluice did not see and gave no other backend. A
     * procedure needs no such flag (CALL pins the session to the primary), and a write's triggers
     * are not counted: one that sets session variables is rare, and every write would otherwise
     * keep such reads off the replicas.
     */
    private boolean storedFunctionRanOnPrimary;

    private RoutingSession(int[] weights, ClientCharset loginCharset) {
        this.weights = weights;
        this.loginCharset = loginCharset;
        this.clientCharset = loginCharset;
    }

    /** A new session on {@code view}'s endpoint: it takes the endpoint's current nodes and weights. */
    public static RoutingSession open(EndpointView view) {
        return open(view, ClientCharset.UTF8MB4);
    }

    /** A new session whose login chose {@code loginCharset} (the handshake's collation). */
    public static RoutingSession open(EndpointView view, ClientCharset loginCharset) {
        int[] weights = new int[view.topology().idLimit()];
        Arrays.fill(weights, NOT_IN_SET);
        for (Node node : view.nodes()) {
            weights[node.id()] = view.policy().weightOf(node);
        }
        return new RoutingSession(weights, loginCharset);
    }

    // ---- what the router reads -------------------------------------------------------------

    /** This session's read weight for a node: 0 when the node is not in its node set. */
    @Override
    public int weightOf(int nodeId) {
        return nodeId >= 0 && nodeId < weights.length ? Math.max(0, weights[nodeId]) : 0;
    }

    /** Whether the node is part of this session's node set. */
    public boolean includes(int nodeId) {
        return nodeId >= 0 && nodeId < weights.length && weights[nodeId] != NOT_IN_SET;
    }

    /** Inside an explicit, implicit (autocommit off) or XA transaction. */
    public boolean inTransaction() {
        return transaction.inTransaction();
    }

    /**
     * A transaction is open on the node holding it (BEGIN sent and not ended, the server's IN_TRANS
     * flag, or XA). Unlike {@link #inTransaction()}, autocommit=0 alone does not count: between a
     * COMMIT and the next statement nothing is open.
     */
    public boolean transactionOpen() {
        return transaction.open();
    }

    public boolean autocommit() {
        return transaction.autocommit();
    }

    /** Whether the current transaction may still send reads to replicas (BEHAVIOUR §6, given splitting is on). */
    public boolean transactionSplittable() {
        return transaction.isolation().allowsSplitting() && !transaction.wrote() && !transaction.snapshot()
                && !transaction.xaActive();
    }

    /** The isolation level of the current (or next) transaction. */
    public IsolationLevel isolationLevel() {
        return transaction.isolation();
    }

    /** LOCK TABLES is in force: the locks live on the primary. */
    public boolean tablesLocked() {
        return transaction.tablesLocked();
    }

    /** After a multi-statement, HANDLER, CALL or compound statement, or a replay history overflow. */
    public boolean pinnedToPrimary() {
        return pinned || history.overflowed();
    }

    /** BEHAVIOUR §7: why a pooled backend connection must stay with this client. */
    public Set<LockCause> lockCauses() {
        return EnumSet.copyOf(lockCauses);
    }

    public boolean lockedToBackend() {
        return !lockCauses.isEmpty();
    }

    public List<TableName> temporaryTables() {
        return List.copyOf(temporaryTables);
    }

    /** Whether the statement may touch one of this session's temporary tables. */
    public boolean touchesTemporaryTable(Statement statement) {
        long referenced = statement.referencedTablesFingerprint();
        for (long fingerprint : temporaryFingerprints) {
            if ((referenced & fingerprint) == fingerprint) {
                return true;
            }
        }
        return false;
    }

    /** The replica that ran the previous statement; empty when it was the primary or nothing. */
    public OptionalInt previousReplica() {
        return previousTarget >= 0 ? OptionalInt.of(previousTarget) : OptionalInt.empty();
    }

    /** GTIDs of the transactions this connection committed (BEHAVIOUR §5 session consistency). */
    public Optional<GtidPosition> lastGtid() {
        return lastGtid;
    }

    /**
     * What a newly opened backend must run first, oldest first. Each command is in the character
     * set the client wrote it in; the backend starts in {@link #loginCharset()}.
     */
    public List<SessionCommand> replayHistory() {
        return history.commands();
    }

    /**
     * Whether some user variable of the session lives on the primary only: assigned by a query
     * ({@code SELECT @v := …}, {@code … INTO @v}, a mixed {@code SET}) rather than by a
     * {@code SET @v = …} whose values every backend was given. Reads of user variables then go to
     * the primary.
     */
    public boolean userVariablesOnPrimaryOnly() {
        return userVariablesOnPrimaryOnly;
    }

    /**
     * Whether a read of user variables must go to the primary: some live there only, or stored
     * code ran there and may have assigned any of them ({@code SET @sum = @sum + NEW.val} in a
     * trigger). Unlike {@link #userVariablesOnPrimaryOnly()}, the latter is no known assignment and
     * does not keep a switchover from moving the session.
     */
    public boolean userVariableReadsOnPrimary() {
        return userVariablesOnPrimaryOnly || storedCodeRanOnPrimary;
    }

    /** Whether a read of the session's system variables must go to the primary: a stored function ran there. */
    public boolean sessionVariableReadsOnPrimary() {
        return storedFunctionRanOnPrimary;
    }

    /** A {@code SET @v = …} ran on the primary but its values could not be given to the other backends. */
    public void userVariablesDiverged() {
        userVariablesOnPrimaryOnly = true;
    }

    /** The character set the client writes its statements in now ({@code character_set_client}). */
    public ClientCharset clientCharset() {
        return clientCharset;
    }

    /** The character set the client's login chose: a backend connection starts in it. */
    public ClientCharset loginCharset() {
        return loginCharset;
    }

    /** The current database, as set by USE or COM_INIT_DB. */
    public Optional<String> schema() {
        return schema;
    }

    /** Read-only endpoints: the replica this connection is mapped to. */
    public OptionalInt connectionReplica() {
        return connectionReplica >= 0 ? OptionalInt.of(connectionReplica) : OptionalInt.empty();
    }

    /** No transaction, no table locks, no pending result: backends may be swapped or left now. */
    public boolean atTransactionBoundary() {
        return transaction.atBoundary();
    }

    // ---- what the server tells it ----------------------------------------------------------

    /** Read-only endpoints: the replica {@code Router.connect} chose for this connection. */
    public void assignConnectionReplica(int nodeId) {
        connectionReplica = nodeId;
    }

    /**
     * The statement is about to be sent as {@code decision} says: the final decision, i.e. after
     * {@code Router.routeAtPrimaryPosition} for a global-consistency read, and the primary when a
     * consistency wait timed out with action {@code primary}. Not called for rejected statements.
     */
    public void onStatementSent(Statement statement, RouteDecision decision) {
        boolean toPrimary = decision instanceof RouteDecision.ToPrimary
                || decision instanceof RouteDecision.ToAllBackends;
        boolean toConnectionReplica = connectionReplica >= 0 && decision instanceof RouteDecision.ToReplica;
        transaction.onSent(statement, toPrimary || toConnectionReplica);
        if (statement.has(StatementProperty.PINS_SESSION)) {
            pinned = true;
        }
        if (statement.locksAny()) {
            lockCauses.addAll(statement.lockCauses());
        }
        if (statement.has(StatementProperty.USER_VARIABLE_WRITE) && statement.userVariablesAssigned().isEmpty()) {
            userVariablesOnPrimaryOnly = true;
        }
        if (touchesTemporaryTable(statement)) {
            lockCauses.add(LockCause.TEMPORARY_TABLE);
        }
        if (toPrimary && mayRunStoredCode(statement)) {
            storedCodeRanOnPrimary = true;
        }
        if (toPrimary && statement.has(StatementProperty.STORED_FUNCTION)) {
            storedFunctionRanOnPrimary = true;
        }
        if (decision instanceof RouteDecision.ToPrimary || decision instanceof RouteDecision.ToAllBackends) {
            previousTarget = PREVIOUS_PRIMARY;
        } else if (decision instanceof RouteDecision.ToReplica replica) {
            previousTarget = replica.nodeId();
            if (connectionReplica >= 0) {
                connectionReplica = replica.nodeId();
            }
        }
        pending = statement;
        pendingFromTransactionHolder = toPrimary || toConnectionReplica;
    }

    /**
     * The final OK or EOF of the statement sent last, with its status flags. Flags of a read that
     * a read-write endpoint sent to a replica are ignored: that replica knows nothing of the
     * client's transaction.
     */
    public void onResponse(int serverStatusFlags) {
        if (pendingFromTransactionHolder) {
            transaction.onStatusFlags(serverStatusFlags);
        }
        Statement done = pending;
        pending = null;
        if (done == null) {
            return;
        }
        transaction.onSucceeded(done);
        done.sessionCommand().ifPresent(this::record);
        done.schemaChange().ifPresent(name -> schema = Optional.of(name));
        if (!done.tablesDropped().isEmpty() || !done.temporaryTablesCreated().isEmpty()) {
            for (TableName dropped : done.tablesDropped()) {
                removeTemporaryTable(dropped);
            }
            for (TableName created : done.temporaryTablesCreated()) {
                removeTemporaryTable(created);
                temporaryTables.add(created);
            }
            refingerprint();
        }
    }

    /** A session command that succeeded: into the replay history, and the client's character set may change. */
    public void record(SessionCommand command) {
        history.record(command);
        command.setsClientCharset().ifPresent(charset -> {
            if (!charset.equals(clientCharset)) {
                clientCharset = charset;
                refingerprint();
            }
        });
    }

    /** The session's temporary tables as statements in the client's current character set name them. */
    private void refingerprint() {
        temporaryFingerprints = temporaryTables.stream()
                .mapToLong(table -> TableFingerprint.of(table.name(), clientCharset)).toArray();
    }

    /** The statement sent last failed (ERR packet): what it would have changed did not happen. */
    public void onError() {
        pending = null;
    }

    /**
     * A GTID the primary reported in an OK packet after a commit (session tracking). It comes
     * after any commit of the session whose GTID was lost ({@link #onSessionStateUnreadable}) in
     * the primary's binary log, so a replica that has it has that one too: the position is known
     * again.
     */
    public void onCommittedGtid(GtidPosition gtid) {
        lastGtid = Optional.of(lastGtid.map(previous -> previous.merge(gtid)).orElse(gtid));
        ownPositionUnknown = false;
    }

    /**
     * An OK packet said the session's state changed, but its state could not be read: a GTID
     * of the session's may have been in it. Until the next one is learned, a read that must see
     * the session's writes can trust the primary only (BEHAVIOUR §5).
     */
    public void onSessionStateUnreadable() {
        ownPositionUnknown = true;
    }

    /** Whether a GTID of this session's may have been lost since the last one learned. */
    public boolean ownPositionUnknown() {
        return ownPositionUnknown;
    }

    /** COM_INIT_DB succeeded: remember it like a USE. */
    public void onSchemaChanged(String newSchema) {
        schema = Optional.of(newSchema);
        history.record(SessionCommand.useSchema(newSchema, clientCharset));
    }

    /** The server learned the session's isolation level from the server itself. */
    public void onIsolationLevel(IsolationLevel level) {
        transaction.setSessionIsolation(level);
    }

    /**
     * At a transaction boundary, drops from this session's node set the nodes that left the
     * topology or are draining, and returns their ids so the server can close those backends.
     * Elsewhere it returns nothing: a transaction finishes where it started.
     */
    public List<Integer> leaveRetiredNodes(Topology topology) {
        if (!atTransactionBoundary()) {
            return List.of();
        }
        List<Integer> left = new ArrayList<>();
        for (int id = 0; id < weights.length; id++) {
            if (weights[id] == NOT_IN_SET) {
                continue;
            }
            Optional<Node> node = topology.node(id);
            if (node.isEmpty() || node.get().draining()) {
                weights[id] = NOT_IN_SET;
                left.add(id);
                if (connectionReplica == id) {
                    connectionReplica = NO_REPLICA;
                }
            }
        }
        return left;
    }

    /**
     * A node that failed one of the session's session commands (BEHAVIOUR §3) leaves the session: its
     * state no longer matches the others', so it takes none of this session's reads any more.
     */
    public void leave(int nodeId) {
        if (nodeId >= 0 && nodeId < weights.length) {
            weights[nodeId] = NOT_IN_SET;
            if (connectionReplica == nodeId) {
                connectionReplica = NO_REPLICA;
            }
            if (previousTarget == nodeId) {
                previousTarget = PREVIOUS_NONE;
            }
        }
    }

    /** COM_CHANGE_USER: back to a fresh session on the same node set, in the character set the new login chose. */
    public void reset(ClientCharset newLoginCharset) {
        loginCharset = newLoginCharset;
        reset();
    }

    /** COM_RESET_CONNECTION: back to a fresh session on the same node set. */
    public void reset() {
        clientCharset = loginCharset;
        userVariablesOnPrimaryOnly = false;
        storedCodeRanOnPrimary = false;
        storedFunctionRanOnPrimary = false;
        transaction.reset();
        history.clear();
        temporaryTables.clear();
        temporaryFingerprints = new long[0];
        lockCauses.clear();
        pinned = false;
        previousTarget = PREVIOUS_NONE;
        lastGtid = Optional.empty();
        ownPositionUnknown = false;
        schema = Optional.empty();
        pending = null;
        pendingFromTransactionHolder = true;
    }

    /**
     * A write of table rows fires the table's triggers, which Sluice does not know of; a stored
     * function or an SQL-level EXECUTE runs code Sluice does not see. (CALL and compound
     * statements pin the session to the primary anyway.)
     */
    private static boolean mayRunStoredCode(Statement statement) {
        return switch (statement.kind()) {
            case INSERT, UPDATE, DELETE, REPLACE, LOAD, EXPLAIN_WRITE, EXECUTE, CALL, COMPOUND -> true;
            default -> statement.has(StatementProperty.STORED_FUNCTION);
        };
    }

    private void removeTemporaryTable(TableName name) {
        temporaryTables.removeIf(table -> table.sameTableAs(name));
    }

    @Override
    public String toString() {
        return "RoutingSession{inTransaction=" + inTransaction() + ", pinned=" + pinnedToPrimary()
                + ", temporaryTables=" + temporaryTables + ", lockCauses=" + lockCauses + "}";
    }
}
