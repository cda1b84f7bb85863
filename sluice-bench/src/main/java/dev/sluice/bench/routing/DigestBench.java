package dev.sluice.bench.routing;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.Router;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementDigest;
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
 * The query digest step (BEHAVIOUR §12) on the path of every statement: the digest of a sysbench
 * point select alone, of a statement with an IN list and of a multi-row INSERT, and the routing
 * benchmark's point select (classify + route, as in {@link ClassifyRouteBench}) with the digest
 * step included. The digest's hash is returned so that its work is not eliminated.
 *
 * <pre>java -jar sluice-bench/target/benchmarks.jar DigestBench -prof gc -f 1 -wi 3 -i 5</pre>
 */
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
@State(Scope.Thread)
public class DigestBench {

    private static final byte[] POINT_SELECT =
            "SELECT c FROM sbtest1 WHERE id=5012".getBytes(StandardCharsets.UTF_8);
    private static final byte[] IN_LIST =
            "SELECT c FROM sbtest1 WHERE id IN (5012, 17, 4410, 9, 62, 5000, 1234, 77)"
                    .getBytes(StandardCharsets.UTF_8);
    private static final byte[] MULTI_ROW_INSERT =
            "INSERT INTO sbtest1 (id, k, c, pad) VALUES (1, 5, 'abc', 'x'), (2, 6, 'def', 'y'), (3, 7, 'ghi', 'z')"
                    .getBytes(StandardCharsets.UTF_8);

    private final StatementDigest digest = new StatementDigest();
    private EndpointView view;
    private RoutingSession session;
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
        active.set(1, 3);
        active.set(2, 2);
    }

    @Benchmark
    public long digestPointSelect() {
        return digest.digest(POINT_SELECT, 0, POINT_SELECT.length, ClientCharset.UTF8MB4).hash();
    }

    @Benchmark
    public long digestInList() {
        return digest.digest(IN_LIST, 0, IN_LIST.length, ClientCharset.UTF8MB4).hash();
    }

    @Benchmark
    public long digestMultiRowInsert() {
        return digest.digest(MULTI_ROW_INSERT, 0, MULTI_ROW_INSERT.length, ClientCharset.UTF8MB4).hash();
    }

    /** The routing benchmark's number with the digest step: bytes in, digest and decision out. */
    @Benchmark
    public RouteDecision classifyDigestAndRoutePointSelect() {
        Statement statement = SqlClassifier.classify(POINT_SELECT, 0, POINT_SELECT.length);
        digest.digest(POINT_SELECT, 0, POINT_SELECT.length, ClientCharset.UTF8MB4);
        return Router.route(statement, session, view, load);
    }

    /** The same without the digest, measured in the same run for the side-by-side figure. */
    @Benchmark
    public RouteDecision classifyAndRoutePointSelect() {
        Statement statement = SqlClassifier.classify(POINT_SELECT, 0, POINT_SELECT.length);
        return Router.route(statement, session, view, load);
    }
}
