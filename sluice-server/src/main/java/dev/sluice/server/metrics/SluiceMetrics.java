package dev.sluice.server.metrics;

import dev.sluice.server.admin.ProxyDescription;
import dev.sluice.server.pool.NodePoolUse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Sluice's Prometheus metrics (BEHAVIOUR §12), all named {@code sluice_…}, plus the JVM's.
 *
 * <p>Two kinds of figures, fed two ways. <em>Events</em> (a statement routed, a backend connect,
 * a consistency wait, an error returned, a session opened or closed) are counted by the session
 * code as they happen, so these methods sit on the hot path: each looks up a meter it created
 * before in a {@link ConcurrentHashMap} keyed by a small record of the label values (no string
 * building, no registry lookup, no lock once the meter exists). <em>Levels</em> (active sessions
 * and requests, weights, readability, lag, up) already live in the proxy's DescribeDBProxy, so
 * rather than keeping a second copy in step, {@link #registerGauges} reads them from it once
 * per {@link #scrape()} (see {@link TopologyGauges}).
 *
 * <p>Label values come from configuration (endpoint and node names) or from small closed sets
 * (targets, reasons, outcomes, error codes), so the number of series stays bounded.
 */
public final class SluiceMetrics implements AutoCloseable {
    /** The Content-Type of {@link #scrape()}: Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    /** Consistency-wait outcomes: a replica caught up in time. */
    public static final String WAIT_OK = "ok";
    /** Consistency-wait outcomes: the timeout sent the read to the primary. */
    public static final String WAIT_TIMEOUT_PRIMARY = "timeout-primary";
    /** Consistency-wait outcomes: the timeout answered the read with an error. */
    public static final String WAIT_TIMEOUT_ERROR = "timeout-error";
    /** The label value used where an event has no node (e.g. a statement rejected before routing). */
    static final String NO_NODE = "none";
    /**
     * Bucket bounds of the latency histograms: from a point select on a warm replica to a report,
     * a connect through a slow network, or a consistency wait that ran to its timeout.
     */
    static final Duration[] LATENCY_BUCKETS = Stream.of(100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000,
            50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000)
            .map(Duration::ofNanos).map(d -> d.multipliedBy(1_000)).toArray(Duration[]::new);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private final ConcurrentMap<RouteKey, Counter> routed = new ConcurrentHashMap<>();
    private final ConcurrentMap<ConnectKey, Counter> connects = new ConcurrentHashMap<>();
    private final ConcurrentMap<WaitKey, Timer> waits = new ConcurrentHashMap<>();
    /** By endpoint, then node: two lookups by String, so that recording allocates no key. */
    private final ConcurrentMap<String, ConcurrentMap<String, Timer>> statementDurations = new ConcurrentHashMap<>();
    private final ConcurrentMap<ConnectKey, Timer> connectDurations = new ConcurrentHashMap<>();
    private final ConcurrentMap<ErrorKey, Counter> errors = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> sessionsOpened = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> sessionsClosed = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> switchovers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> failovers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> transactionReplays = new ConcurrentHashMap<>();
    private volatile TopologyGauges gauges;

    private record RouteKey(String endpoint, String node, String target, String reason) {
    }

    private record ConnectKey(String node, boolean ok) {
    }

    private record WaitKey(String endpoint, String outcome) {
    }

    private record ErrorKey(String endpoint, int code) {
    }

    public SluiceMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /**
     * A statement was routed: {@code target} is {@code primary}, {@code replica}, {@code all},
     * {@code local} or {@code rejected}; {@code reason} is the router's reason; {@code node} may be
     * null when the statement ran nowhere.
     */
    public void statementRouted(String endpoint, String node, String target, String reason) {
        RouteKey key = new RouteKey(endpoint, label(node), target, reason);
        cached(routed, key, k -> Counter.builder("sluice.statements.routed")
                .description("Statements routed, by endpoint, node, target and the router's reason")
                .tag("endpoint", label(k.endpoint)).tag("node", k.node).tag("target", label(k.target))
                .tag("reason", label(k.reason))
                .register(registry)).increment();
    }

    /** A connection to a backend node was attempted; {@code ok} says whether it logged in. */
    public void backendConnect(String node, boolean ok) {
        cached(connects, new ConnectKey(node, ok), k -> Counter.builder("sluice.backend.connects")
                .description("Backend connection attempts, by node and outcome (ok | failed)")
                .tag("node", label(k.node)).tag("outcome", k.ok ? "ok" : "failed")
                .register(registry)).increment();
    }

    /**
     * A read waited for a replica to catch up (BEHAVIOUR §5): {@code outcome} is {@link #WAIT_OK},
     * {@link #WAIT_TIMEOUT_PRIMARY} (fell back to the primary) or {@link #WAIT_TIMEOUT_ERROR}.
     */
    public void consistencyWait(String endpoint, String outcome, long nanos) {
        cached(waits, new WaitKey(endpoint, outcome), k -> Timer.builder("sluice.consistency.wait")
                .description("Reads that waited for a fresh enough replica, by endpoint and outcome")
                .tag("endpoint", label(k.endpoint)).tag("outcome", label(k.outcome))
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * A statement's answer is complete: {@code nanos} from its arrival to the end of its answer,
     * on {@code node} (null when the node left the topology meanwhile).
     */
    public void statementAnswered(String endpoint, String node, long nanos) {
        String nodeLabel = label(node);
        ConcurrentMap<String, Timer> byNode = cached(statementDurations, endpoint, e -> new ConcurrentHashMap<>());
        Timer timer = byNode.get(nodeLabel);
        if (timer == null) {
            timer = byNode.computeIfAbsent(nodeLabel, n -> Timer.builder("sluice.statement.duration")
                    .description("Statements from their arrival to the end of their answer, by endpoint and node")
                    .tag("endpoint", label(endpoint)).tag("node", n)
                    .serviceLevelObjectives(LATENCY_BUCKETS)
                    .register(registry));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A connection to {@code node} was opened and logged in ({@code ok}), or failed, after {@code nanos}. */
    public void backendConnectDuration(String node, boolean ok, long nanos) {
        cached(connectDurations, new ConnectKey(node, ok), k -> Timer.builder("sluice.backend.connect.duration")
                .description("Backend connections from the connect to the end of the login, by node and outcome")
                .tag("node", label(k.node)).tag("outcome", k.ok ? "ok" : "failed")
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Sluice itself answered a client with a MySQL error {@code code}. */
    public void errorReturned(String endpoint, int code) {
        cached(errors, new ErrorKey(endpoint, code), k -> Counter.builder("sluice.errors.returned")
                .description("MySQL errors Sluice itself returned to clients, by endpoint and error code")
                .tag("endpoint", label(k.endpoint)).tag("code", Integer.toString(k.code))
                .register(registry)).increment();
    }

    /** A client session was accepted on {@code endpoint}. */
    public void sessionOpened(String endpoint) {
        cached(sessionsOpened, endpoint, e -> Counter.builder("sluice.sessions.opened")
                .description("Client sessions accepted, by endpoint")
                .tag("endpoint", label(e)).register(registry)).increment();
    }

    /** A client session on {@code endpoint} ended. */
    public void sessionClosed(String endpoint) {
        cached(sessionsClosed, endpoint, e -> Counter.builder("sluice.sessions.closed")
                .description("Client sessions ended, by endpoint")
                .tag("endpoint", label(e)).register(registry)).increment();
    }

    /** A switchover ended: {@code outcome} is {@code done}, {@code called-off} or {@code refused} (BEHAVIOUR §10). */
    public void switchover(String outcome) {
        cached(switchovers, outcome, o -> Counter.builder("sluice.switchovers")
                .description("Switchovers run by Sluice, by outcome")
                .tag("outcome", label(o)).register(registry)).increment();
    }

    /** A failover ended: {@code outcome} is {@code done}, {@code called-off} or {@code refused} (BEHAVIOUR §10). */
    public void failover(String outcome) {
        cached(failovers, outcome, o -> Counter.builder("sluice.failovers")
                .description("Failovers run by Sluice, by outcome")
                .tag("outcome", label(o)).register(registry)).increment();
    }

    /**
     * A transaction lost with its primary connection met the client's next command (BEHAVIOUR §10):
     * {@code outcome} is {@code replayed}, {@code differed} (an answer of the replay did not match),
     * {@code failed} (the replay could not run) or {@code not-replayable}.
     */
    public void transactionReplay(String outcome) {
        cached(transactionReplays, outcome, o -> Counter.builder("sluice.transaction.replays")
                .description("Transactions lost with their primary connection, by what their replay came to")
                .tag("outcome", label(o)).register(registry)).increment();
    }

    /** A failover's old primary came back holding {@code count} commits no replica had (BEHAVIOUR §10). */
    public void unshippedCommits(long count) {
        Counter.builder("sluice.failover.unshipped.commits")
                .description("Commits a failed primary acknowledged that the promoted replica never had, found when "
                        + "it came back").register(registry).increment(count);
    }

    /**
     * Exposes the levels DescribeDBProxy knows (sessions, requests, weights, readability, lag, up)
     * as gauges, read from {@code description} once per {@link #scrape()}. Endpoints and nodes
     * added or removed at run time gain or lose their series at the next scrape. Call once.
     */
    public void registerGauges(Supplier<ProxyDescription> description) {
        registerGauges(description, List::of);
    }

    /** As {@link #registerGauges(Supplier)}, with the use of the connection pools per endpoint and node. */
    public void registerGauges(Supplier<ProxyDescription> description, Supplier<List<NodePoolUse>> pools) {
        if (gauges != null) {
            throw new IllegalStateException("the topology gauges are registered already");
        }
        gauges = new TopologyGauges(registry, description, pools);
    }

    /**
     * Statement latencies per endpoint since start, its nodes summed (the dashboard's history reads
     * them once a step; the statement path is not touched).
     */
    public Map<String, LatencyCounts> statementLatencies() {
        Map<String, LatencyCounts> out = new HashMap<>();
        statementDurations.forEach((endpoint, byNode) -> {
            LatencyCounts sum = LatencyCounts.NONE;
            for (Timer t : byNode.values()) {
                sum = sum.plus(counts(t));
            }
            out.put(endpoint, sum);
        });
        return out;
    }

    /** Consistency waits since start per outcome, every endpoint summed. */
    public Map<String, Long> consistencyWaits() {
        Map<String, Long> out = new HashMap<>();
        waits.forEach((k, t) -> out.merge(k.outcome, t.count(), Long::sum));
        return out;
    }

    private static LatencyCounts counts(Timer t) {
        HistogramSnapshot s = t.takeSnapshot();
        CountAtBucket[] buckets = s.histogramCounts();
        long[] atOrBelow = new long[LATENCY_BUCKETS.length];
        // The buckets are the SLOs given at registration, in order, and Micrometer counts them cumulatively.
        for (int i = 0; i < atOrBelow.length && i < buckets.length; i++) {
            atOrBelow[i] = (long) buckets[i].count();
        }
        return new LatencyCounts(atOrBelow, s.count());
    }

    /** The whole exposition in the Prometheus text format ({@link #CONTENT_TYPE}), gauges refreshed first. */
    public String scrape() {
        TopologyGauges g = gauges;
        if (g != null) {
            g.refresh();
        }
        return registry.scrape();
    }

    /** In cluster mode: {@code sluice_cluster_leader}, 1 while this instance is the leader (BEHAVIOUR §11), else 0. */
    public void clusterLeader(BooleanSupplier leading) {
        Gauge.builder("sluice.cluster.leader", () -> leading.getAsBoolean() ? 1 : 0)
                .description("1 while this instance is the cluster's leader, which runs switchovers and failovers")
                .register(registry);
    }

    /** The registry, for meters other parts of Sluice want to add. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        gcMetrics.close();
        registry.close();
    }

    /** A label value; a missing one becomes {@value #NO_NODE} (Micrometer refuses null tags). */
    static String label(String value) {
        return value == null ? NO_NODE : value;
    }

    /** The meter for {@code key}: a plain read when it exists, so the hot path takes no lock. */
    private static <K, M> M cached(ConcurrentMap<K, M> meters, K key, Function<K, M> create) {
        M m = meters.get(key);
        return m != null ? m : meters.computeIfAbsent(key, create);
    }
}
