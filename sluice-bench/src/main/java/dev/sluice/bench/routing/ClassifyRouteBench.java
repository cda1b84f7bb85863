package dev.sluice.bench.routing;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.Router;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.ReplicationLag;
import dev.sluice.routing.topology.Topology;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-statement routing cost: classify the COM_QUERY bytes of a sysbench point select, then
 * route it on a read-write endpoint (primary + 2 replicas, least-active, eventual consistency).
 * The parts are measured alone too, and a write and a session-consistent read for comparison.
 *
 * <pre>java -jar sluice-bench/target/benchmarks.jar ClassifyRouteBench -prof gc -f 1 -wi 3 -i 5</pre>
 */
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
@State(Scope.Thread)
public class ClassifyRouteBench {

    private static final byte[] POINT_SELECT =
            "SELECT c FROM sbtest1 WHERE id=5012".getBytes(StandardCharsets.UTF_8);
    private static final byte[] UPDATE =
            "UPDATE sbtest1 SET k=k+1 WHERE id=5012".getBytes(StandardCharsets.UTF_8);

    private EndpointView view;
    private EndpointView sessionConsistentView;
    private RoutingSession session;
    private RoutingSession consistentSession;
    private Statement pointSelect;
    /** What the server keeps: one atomic counter per node id. */
    private final AtomicIntegerArray active = new AtomicIntegerArray(8);
    private final ActiveRequests load = active::get;

    @Setup
    public void setUp() {
        MariaDbGtidList applied = MariaDbGtidList.of(0, 1, 1_000);
        Topology topology = Topology.empty()
                .withNode("primary", "127.0.0.1:3311", NodeRole.PRIMARY)
                .withNode("ro1", "127.0.0.1:3312", NodeRole.REPLICA)
                .withNode("ro2", "127.0.0.1:3313", NodeRole.REPLICA)
                .withState("primary", NodeState.primary(applied))
                .withState("ro1", NodeState.replica(ReplicationLag.NONE, applied))
                .withState("ro2", NodeState.replica(ReplicationLag.ofSeconds(1), MariaDbGtidList.of(0, 1, 990)));
        view = EndpointView.of(topology, EndpointPolicy.defaults("rw"));
        session = RoutingSession.open(view);
        sessionConsistentView = EndpointView.of(topology, EndpointPolicy.defaults("rw")
                .withConsistency(dev.sluice.routing.policy.ConsistencyLevel.SESSION));
        consistentSession = RoutingSession.open(sessionConsistentView);
        consistentSession.onCommittedGtid(MariaDbGtidList.of(0, 1, 995));
        pointSelect = SqlClassifier.classify(POINT_SELECT, 0, POINT_SELECT.length);
        active.set(1, 3);
        active.set(2, 2);
    }

    /** The number that matters: bytes in, decision out. */
    @Benchmark
    public RouteDecision classifyAndRoutePointSelect() {
        Statement statement = SqlClassifier.classify(POINT_SELECT, 0, POINT_SELECT.length);
        return Router.route(statement, session, view, load);
    }

    @Benchmark
    public Statement classifyPointSelect() {
        return SqlClassifier.classify(POINT_SELECT, 0, POINT_SELECT.length);
    }

    @Benchmark
    public RouteDecision routePointSelect() {
        return Router.route(pointSelect, session, view, load);
    }

    @Benchmark
    public RouteDecision classifyAndRouteUpdate() {
        Statement statement = SqlClassifier.classify(UPDATE, 0, UPDATE.length);
        return Router.route(statement, session, view, load);
    }

    /** Session consistency with a GTID only ro1 has: the containment check runs per candidate. */
    @Benchmark
    public RouteDecision classifyAndRouteSessionConsistentRead() {
        Statement statement = SqlClassifier.classify(POINT_SELECT, 0, POINT_SELECT.length);
        return Router.route(statement, consistentSession, sessionConsistentView, load);
    }
}
