package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.BalancerKind;
import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.policy.TimeoutAction;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.AutocommitChange;
import dev.sluice.routing.sql.Hint;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementKind;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.routing.sql.TransactionControl;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Random topologies, lags, weights, policies and statement streams through the router, with a
 * fake server answering like MariaDB would. Invariants:
 * <ol>
 *   <li>a write, DDL, locking read or in-transaction statement (without splitting) never goes to a replica;
 *   <li>a read goes to a replica only if the session holds it with weight above 0 and the readable set allows it
 *       (every fallback of BEHAVIOUR §2–§5 goes to the primary);
 *   <li>a session-consistent read goes to a replica only if its known position has the session's GTID, or
 *       the decision says to wait there for it.
 * </ol>
 * Each failure message carries the seed; rerun with it ({@code -Dsluice.property.seed=N}) to reproduce.
 */
class RouterPropertyTest {

    private static final int WORLDS = 300;
    private static final int STATEMENTS_PER_WORLD = 300;
    private static final String[] CORPUS = {
        "SELECT * FROM t WHERE id = 1", "SELECT COUNT(*) FROM u", "SELECT * FROM tmp1", "SELECT a FROM t JOIN tmp2",
        "SELECT * FROM t FOR UPDATE", "SELECT * FROM t LOCK IN SHARE MODE", "SELECT a INTO @x FROM t",
        "SELECT @x", "SELECT LAST_INSERT_ID()", "SELECT my_func(1)", "SELECT GET_LOCK('l', 0)", "SELECT NEXTVAL(s)",
        "SHOW TABLES", "SHOW WARNINGS", "SELECT FOUND_ROWS()", "SHOW PROCESSLIST", "DESCRIBE t", "EXPLAIN SELECT 1",
        "INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "DELETE FROM t", "REPLACE INTO t VALUES (2)",
        "CREATE TABLE x (a INT)", "DROP TABLE x", "ALTER TABLE t ADD b INT",
        "CREATE TEMPORARY TABLE tmp1 (a INT)", "CREATE TEMPORARY TABLE tmp2 (a INT)", "DROP TEMPORARY TABLE tmp1",
        "BEGIN", "START TRANSACTION READ ONLY", "START TRANSACTION WITH CONSISTENT SNAPSHOT", "COMMIT", "ROLLBACK",
        "SAVEPOINT s", "SET autocommit = 0", "SET autocommit = 1",
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
        "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
        "SET NAMES utf8mb4", "SET sql_mode = ''", "USE db1", "SET @x = 1", "SELECT @x := 2", "SELECT @x", "LOCK TABLES t READ", "UNLOCK TABLES",
        "SELECT sluice_last_gtid()", "SELECT 1; SELECT 2", "CALL p()", "HANDLER t OPEN", "PREPARE s FROM 'SELECT 1'",
        "WITH c AS (SELECT 1) SELECT * FROM c", "WITH c AS (SELECT 1) UPDATE t SET a = 1", "SELECT 'unterminated",
        "XA START 'x'", "XA END 'x'", "XA COMMIT 'x' ONE PHASE", "DO 1", "KILL 5", "SELECT * FROM t WHERE f(a)",
        "GET DIAGNOSTICS @n = NUMBER",
    };
    private static final String[] HINTS = {"", "", "", "", "/*FORCE_MASTER*/ ", "/*FORCE_SLAVE*/ ",
        "/*CONSISTENT_WITH=0-1-%d*/ "};

    /** How often each reason came up: the invariants are only worth something if replicas were chosen. */
    private static final Map<RouteReason, Integer> STATS = new ConcurrentHashMap<>();

    /**
     * Decisions the invariants must have been checked on. Some are rare: a split read needs splitting on,
     * READ COMMITTED and no write yet in the transaction, and 300 worlds miss it about once in a few
     * hundred seeds. So worlds go on being made until each was seen, and only a seed that never shows one
     * in {@link #MAX_WORLDS} worlds fails: that means the world no longer reaches it, not bad luck.
     */
    private static final Set<RouteReason> MUST_SEE = EnumSet.of(RouteReason.READ, RouteReason.TRANSACTION_SPLIT,
            RouteReason.CONSISTENCY_WAIT, RouteReason.IN_TRANSACTION, RouteReason.FALLBACK_NO_REPLICA,
            RouteReason.HINT, RouteReason.TEMPORARY_TABLE, RouteReason.WRITE);
    private static final int MAX_WORLDS = WORLDS * 10;

    @Test
    void readWriteInvariantsHoldForRandomWorlds() {
        long seed = Long.getLong("sluice.property.seed", System.nanoTime());
        Random random = new Random(seed);
        STATS.clear();
        int world = 0;
        while (world < WORLDS || (!STATS.keySet().containsAll(MUST_SEE) && world < MAX_WORLDS)) {
            new World(random, seed, world++).run();
        }
        assertThat(STATS).as("seed %d after %d worlds: decisions seen %s", seed, world, STATS)
                .containsKeys(MUST_SEE.toArray(RouteReason[]::new));
        assertThat(STATS.get(RouteReason.READ)).as("seed %d", seed).isGreaterThan(WORLDS);
    }

    @Test
    void readOnlyEndpointsNeverLetAWriteThrough() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int world = 0; world < WORLDS / 3; world++) {
            Topology topology = randomTopology(random, 1 + random.nextInt(4), 100);
            EndpointPolicy policy = randomPolicy(random, topology).withMode(EndpointMode.READ_ONLY);
            EndpointView view = EndpointView.of(topology, policy);
            RoutingSession session = RoutingSession.open(view);
            RouteDecision connect = Router.connect(session, view);
            String context = "seed " + seed + " world " + world + " " + topology;
            if (connect instanceof RouteDecision.Reject) {
                assertThat(view.readable().isEmpty() || allZero(session, view)).as(context).isTrue();
                continue;
            }
            int replica = ((RouteDecision.ToReplica) connect).nodeId();
            assertThat(topology.node(replica).orElseThrow().isReplica()).as(context).isTrue();
            assertThat(session.weightOf(replica)).as(context).isPositive();
            session.assignConnectionReplica(replica);
            for (int i = 0; i < STATEMENTS_PER_WORLD / 3; i++) {
                Statement s = SqlClassifier.classify(CORPUS[random.nextInt(CORPUS.length)]);
                RouteDecision d = Router.route(s, session, view, ActiveRequests.NONE);
                boolean write = switch (s.kind()) {
                    case INSERT, UPDATE, DELETE, REPLACE, LOAD, ADMINISTRATION -> true;
                    default -> false;
                };
                if (write) {
                    assertThat(d).as(context + " " + s).isInstanceOf(RouteDecision.Reject.class);
                }
                if (d instanceof RouteDecision.ToReplica r) {
                    assertThat(r.nodeId()).as(context + " " + s).isEqualTo(replica);
                }
                assertThat(d).as(context + " " + s).isNotInstanceOf(RouteDecision.ToPrimary.class);
            }
        }
    }

    private static boolean allZero(RoutingSession session, EndpointView view) {
        return view.nodes().stream().filter(Node::isReplica).allMatch(n -> session.weightOf(n.id()) == 0
                || !(view.readable().isReadable(n.id()) || view.readable().passesHealthRules(n.id())));
    }

    /** One random cluster and endpoint with a few sessions and a fake server, changing as it runs. */
    private static final class World {
        private final Random random;
        private final long seed;
        private final int index;
        private long primarySequence = 100;
        private EndpointView view;
        private final List<RoutingSession> sessions = new ArrayList<>();
        private final Map<RoutingSession, FakeServerSession> server = new HashMap<>();

        World(Random random, long seed, int index) {
            this.random = random;
            this.seed = seed;
            this.index = index;
            Topology topology = randomTopology(random, 1 + random.nextInt(5), primarySequence);
            view = EndpointView.of(topology, randomPolicy(random, topology));
        }

        void run() {
            for (int i = 0; i < 3; i++) {
                openSession();
            }
            for (int step = 0; step < STATEMENTS_PER_WORLD; step++) {
                if (random.nextInt(20) == 0) {
                    changeWorld();
                }
                if (random.nextInt(50) == 0) {
                    openSession();
                }
                RoutingSession session = sessions.get(random.nextInt(sessions.size()));
                String hint = HINTS[random.nextInt(HINTS.length)].replace("%d",
                        Long.toString(primarySequence - random.nextInt(5)));
                Statement statement = SqlClassifier.classify(hint + CORPUS[random.nextInt(CORPUS.length)]);
                int[] load = new int[view.topology().idLimit()];
                for (int k = 0; k < load.length; k++) {
                    load[k] = random.nextInt(4);
                }
                int stepNumber = step;
                EndpointView seen = view;
                Supplier<String> context = () -> "seed " + seed + " world " + index + " step " + stepNumber + ": "
                        + statement + "\n  view " + seen.topology() + "\n  policy " + seen.policy()
                        + "\n  readable " + seen.readable() + "\n  session " + session;
                boolean inTransaction = session.inTransaction();
                RouteDecision decision = Router.route(statement, session, view, id -> load[id]);
                if (decision instanceof RouteDecision.NeedPrimaryPosition) {
                    assertThat(view.policy().consistency()).as(context).isEqualTo(ConsistencyLevel.GLOBAL);
                    decision = Router.routeAtPrimaryPosition(statement, session, view, id -> load[id], primaryPosition());
                    assertThat(decision).as(context).isNotInstanceOf(RouteDecision.NeedPrimaryPosition.class);
                }
                RouteDecision decided = decision;
                check(statement, session, inTransaction, decision, () -> context.get() + "\n  decision " + decided);
                count(decision);
                server.get(session).execute(statement, decision);
            }
        }

        private void openSession() {
            RoutingSession session = RoutingSession.open(view);
            sessions.add(session);
            server.put(session, new FakeServerSession(session));
        }

        private GtidPosition primaryPosition() {
            return MariaDbGtidList.of(0, 1, primarySequence);
        }

        /** The monitor or an operator changes something: lags, positions, weights, drains, removals. */
        private void changeWorld() {
            Topology topology = view.topology();
            List<Node> replicas = topology.nodes().stream().filter(Node::isReplica).toList();
            EndpointPolicy policy = view.policy();
            switch (random.nextInt(5)) {
                case 0, 1 -> {
                    if (!replicas.isEmpty()) {
                        Node n = replicas.get(random.nextInt(replicas.size()));
                        topology = topology.withState(n.name(), randomReplicaState(random, primarySequence));
                    }
                }
                case 2 -> policy = randomPolicy(random, topology);
                case 3 -> {
                    if (!replicas.isEmpty()) {
                        Node n = replicas.get(random.nextInt(replicas.size()));
                        topology = random.nextBoolean() ? topology.withDraining(n.name(), !n.draining())
                                : topology.withoutNode(n.name());
                    }
                }
                default -> {
                    String name = "ro" + topology.idLimit();
                    topology = topology.withNode(name, "h:" + topology.idLimit(), NodeRole.REPLICA)
                            .withState(name, randomReplicaState(random, primarySequence));
                }
            }
            view = view.next(topology, policy);
            for (RoutingSession s : sessions) {
                s.leaveRetiredNodes(topology);
            }
        }

        private void count(RouteDecision decision) {
            STATS.merge(decision.reason(), 1, Integer::sum);
        }

        private void check(Statement s, RoutingSession session, boolean inTransaction, RouteDecision decision,
                           Supplier<String> context) {
            assertThat(decision).as(context).isNotNull();
            if (!(decision instanceof RouteDecision.ToReplica replica)) {
                return;
            }
            int id = replica.nodeId();
            if (replica.reason() == RouteReason.PREVIOUS_TARGET) {
                assertThat(s.has(StatementProperty.PREVIOUS_TARGET)).as(context).isTrue();
                return;
            }
            // 1. writes, DDL, locking reads and transactions stay on the primary
            assertThat(s.kind().isRead()).as(context).isTrue();
            // A user variable read may leave the primary only while every user variable reached every backend.
            assertThat(s.has(StatementProperty.USER_VARIABLE_READ) && session.userVariableReadsOnPrimary())
                    .as(context).isFalse();
            for (StatementProperty p : new StatementProperty[] {StatementProperty.LOCKING_READ,
                StatementProperty.SELECT_INTO, StatementProperty.SEQUENCE,
                StatementProperty.USER_VARIABLE_WRITE, StatementProperty.LAST_INSERT_ID,
                StatementProperty.LOCKING_FUNCTION, StatementProperty.MULTI_STATEMENT, StatementProperty.MALFORMED,
                StatementProperty.NODE_SPECIFIC}) {
                assertThat(s.has(p)).as(() -> context.get() + " has " + p).isFalse();
            }
            assertThat(s.hint()).as(context).isNotEqualTo(Hint.FORCE_MASTER);
            if (inTransaction) {
                assertThat(view.policy().transactionSplitting()).as(() -> context.get() + ": in a transaction").isTrue();
            }
            assertThat(session.pinnedToPrimary() || session.tablesLocked() || session.touchesTemporaryTable(s))
                    .as(context).isFalse();
            // 2. only readable (or, for this session, healthy) replicas it holds with weight > 0
            Node node = view.topology().node(id).orElseThrow(() -> new AssertionError(context.get() + ": unknown node"));
            assertThat(node.isReplica()).as(context).isTrue();
            assertThat(session.weightOf(id)).as(() -> context.get() + ": weight").isPositive();
            assertThat(view.readable().isReadable(id) || view.readable().passesHealthRules(id))
                    .as(() -> context.get() + ": readable").isTrue();
            assertThat(view.nodes()).as(context).contains(node);
            // 3. consistency
            if (s.hint() == Hint.FORCE_SLAVE) {
                return;
            }
            GtidPosition required = null;
            if (view.policy().consistency() == ConsistencyLevel.SESSION && session.lastGtid().isPresent()) {
                required = session.lastGtid().get();
            }
            if (s.consistencyToken().isPresent()) {
                required = required == null ? s.consistencyToken().get() : required.merge(s.consistencyToken().get());
            }
            if (view.policy().consistency() == ConsistencyLevel.GLOBAL) {
                required = required == null ? primaryPosition() : required.merge(primaryPosition());
            }
            if (required == null) {
                return;
            }
            if (replica.consistency() instanceof ConsistencyRequirement.WaitFor wait) {
                assertThat(wait.position().contains(required)).as(context).isTrue();
                assertThat(wait.timeout()).as(context).isEqualTo(view.policy().consistencyTimeout());
            } else {
                GtidPosition has = node.state().position().orElse(MariaDbGtidList.EMPTY);
                GtidPosition need = required;
                assertThat(has.contains(need)).as(() -> context.get() + ": replica " + has + " lacks " + need).isTrue();
            }
        }

        /** Answers like a MariaDB primary would, closely enough for the session's bookkeeping. */
        private final class FakeServerSession {
            private final RoutingSession session;
            private boolean inTransaction;
            private boolean autocommit = true;
            private boolean wrote;

            FakeServerSession(RoutingSession session) {
                this.session = session;
            }

            void execute(Statement s, RouteDecision decision) {
                if (decision instanceof RouteDecision.Reject || decision instanceof RouteDecision.AnswerLocally) {
                    return;
                }
                session.onStatementSent(s, decision);
                if (random.nextInt(20) == 0) {
                    session.onError();
                    return;
                }
                boolean onPrimary = decision instanceof RouteDecision.ToPrimary
                        || decision instanceof RouteDecision.ToAllBackends;
                if (!onPrimary) {
                    session.onResponse(ServerStatus.AUTOCOMMIT);
                    return;
                }
                TransactionControl control = s.transactionControl();
                boolean commits = false;
                if (control == TransactionControl.BEGIN) {
                    commits = inTransaction;
                    inTransaction = true;
                } else if (control.ends() || control == TransactionControl.XA_END) {
                    commits = control == TransactionControl.COMMIT || control == TransactionControl.XA_COMMIT;
                    inTransaction = false;
                } else if (s.autocommitChange() == AutocommitChange.ON) {
                    commits = inTransaction;
                    autocommit = true;
                    inTransaction = false;
                } else if (s.autocommitChange() == AutocommitChange.OFF) {
                    autocommit = false;
                } else if (s.kind() == StatementKind.DDL) {
                    commits = inTransaction;
                    inTransaction = false;
                    wrote = true;
                } else if (!s.kind().isRead()) {
                    wrote = true;
                    if (autocommit && !inTransaction) {
                        commits = true;
                    } else {
                        inTransaction = true;
                    }
                } else if (!autocommit) {
                    inTransaction = true;
                }
                if (commits && wrote) {
                    primarySequence++;
                    session.onCommittedGtid(MariaDbGtidList.of(0, 1, primarySequence));
                    wrote = false;
                }
                session.onResponse((inTransaction ? ServerStatus.IN_TRANS : 0)
                        | (autocommit ? ServerStatus.AUTOCOMMIT : 0));
            }
        }
    }

    static Topology randomTopology(Random random, int replicas, long primarySequence) {
        Topology t = Topology.empty().withNode("primary", "h:0", NodeRole.PRIMARY)
                .withState("primary", random.nextInt(10) == 0 ? NodeState.UNMONITORED
                        : NodeState.primary(MariaDbGtidList.of(0, 1, primarySequence)));
        for (int i = 1; i <= replicas; i++) {
            String name = "ro" + i;
            t = t.withNode(name, "h:" + i, NodeRole.REPLICA, java.util.Optional.empty(), 1 + random.nextInt(3))
                    .withState(name, randomReplicaState(random, primarySequence));
            if (random.nextInt(10) == 0) {
                t = t.withDraining(name, true);
            }
        }
        return t;
    }

    static NodeState randomReplicaState(Random random, long primarySequence) {
        return switch (random.nextInt(8)) {
            case 0 -> NodeState.UNMONITORED;
            case 1 -> NodeState.replica(ReplicationLag.BROKEN);
            case 2 -> NodeState.replica(ReplicationLag.ofSeconds(20 + random.nextInt(40)),
                    MariaDbGtidList.of(0, 1, Math.max(0, primarySequence - random.nextInt(30))));
            case 3 -> NodeState.replica(ReplicationLag.ofSeconds(random.nextInt(3)));
            default -> NodeState.replica(ReplicationLag.ofSeconds(random.nextInt(5)),
                    MariaDbGtidList.of(0, 1, Math.max(0, primarySequence - random.nextInt(4))));
        };
    }

    static EndpointPolicy randomPolicy(Random random, Topology topology) {
        EndpointPolicy policy = EndpointPolicy.defaults("rw")
                .withBalancer(random.nextBoolean() ? BalancerKind.WEIGHTED : BalancerKind.LEAST_ACTIVE)
                .withConsistency(ConsistencyLevel.values()[random.nextInt(ConsistencyLevel.values().length)])
                .withConsistencyTimeout(Duration.ofMillis(random.nextInt(3) * 10L))
                .withTimeoutAction(random.nextBoolean() ? TimeoutAction.PRIMARY : TimeoutAction.ERROR)
                .withMaxReplicationLag(Duration.ofSeconds(random.nextInt(40)))
                .withMinReservedNodes(random.nextInt(3))
                .withTransactionSplitting(random.nextBoolean());
        if (random.nextBoolean()) {
            Map<String, Integer> weights = new HashMap<>();
            for (Node node : topology.nodes()) {
                if (random.nextInt(4) != 0) {
                    weights.put(node.name(), random.nextInt(3) == 0 ? 0 : random.nextInt(ReadWeights.MAX_WEIGHT + 1));
                }
            }
            policy = policy.withWeights(new ReadWeights.Custom(weights));
        }
        return policy;
    }
}
