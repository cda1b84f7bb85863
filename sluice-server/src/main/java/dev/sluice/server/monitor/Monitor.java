package dev.sluice.server.monitor;

import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.net.HostPort;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health and replication monitor (BEHAVIOUR §4): every {@code monitor.interval} each node is
 * checked — reachable, read_only, replication threads, lag, GTID position — and the topology
 * snapshot is replaced with what was seen. A node that stops answering is marked unreachable once
 * it has missed {@code down-after} checks in a row ({@link NodeProbe}).
 */
public final class Monitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Monitor.class);
    /** Primary positions kept for GTID-derived lag: ten minutes at a 1 s interval. */
    private static final int LAG_SAMPLES = 600;

    private final TopologyHolder topology;
    private final BackendConnector connector;
    private final EventLoopGroup group;
    private final ProbeSchedule schedule;
    private final LoginRequest login;
    private final LongSupplier nanoClock;
    private final GtidLagEstimator lag = new GtidLagEstimator(LAG_SAMPLES);
    private final Map<String, NodeProbe> probes = new HashMap<>();
    private final Map<String, String> lastProblem = new HashMap<>();
    private ScheduledFuture<?> ticker;
    private final java.util.Set<String> seenOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.CountDownLatch firstRound;

    public Monitor(TopologyHolder topology, BackendConnector connector, EventLoopGroup group, ProbeSchedule schedule,
            LoginRequest login, LongSupplier nanoClock) {
        this.topology = topology;
        this.connector = connector;
        this.group = group;
        this.schedule = schedule;
        this.login = login;
        this.nanoClock = nanoClock;
        this.firstRound = new java.util.concurrent.CountDownLatch(topology.current().nodes().size());
    }

    /** Waits (at most {@code limit}) until every node has been checked once. */
    public void awaitFirstRound(java.time.Duration limit) {
        try {
            firstRound.await(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Told of every check's outcome, after the topology took it in (the automatic failover counts them). */
    public interface CheckListener {
        void answered(String node);

        void missed(String node);
    }

    private volatile CheckListener checks = new CheckListener() {
        @Override
        public void answered(String node) {
        }

        @Override
        public void missed(String node) {
        }
    };

    public void onChecks(CheckListener listener) {
        this.checks = listener;
    }

    /** Checks one node now (a session saw it fail). */
    public synchronized void checkNow(int nodeId) {
        topology.current().node(nodeId).map(n -> probes.get(n.name())).ifPresent(NodeProbe::tick);
    }

    private void seen(String nodeName) {
        if (seenOnce.add(nodeName)) {
            firstRound.countDown();
        }
    }

    public void start() {
        syncProbes(topology.current());
        topology.addListener(this::syncProbes);
        long ms = schedule.interval().toMillis();
        ticker = group.next().scheduleAtFixedRate(this::tickAll, 0, ms, TimeUnit.MILLISECONDS);
    }

    /** Checks every node now (also called by the ticker). */
    public synchronized void tickAll() {
        for (NodeProbe p : probes.values()) {
            p.tick();
        }
    }

    /** Probes follow the node set: nodes added by the admin API get one, removed nodes lose theirs. */
    private synchronized void syncProbes(Topology t) {
        for (Node n : t.nodes()) {
            NodeProbe existing = probes.get(n.name());
            if (existing != null && existing.address().toString().equals(n.address())) {
                continue;
            }
            if (existing != null) {
                existing.close();
            }
            probes.put(n.name(), new NodeProbe(n.name(), n.id(), HostPort.parse(n.address()),
                    group.next(), connector, login, schedule.connectTimeout(), schedule.queryTimeout(),
                    schedule.downAfter(), results));
        }
        probes.entrySet().removeIf(e -> {
            if (t.node(e.getKey()).isEmpty()) {
                e.getValue().close();
                return true;
            }
            return false;
        });
    }

    /** When the primary last answered a check; MAX_VALUE before it ever did. */
    private volatile long primarySeenAt = Long.MAX_VALUE;

    private final NodeProbe.Results results = new NodeProbe.Results() {
        @Override
        public void observed(NodeProbe probe, NodeObservation o) {
            long now = nanoClock.getAsLong();
            Optional<Node> node = topology.current().node(probe.nodeName());
            if (node.isEmpty()) {
                return;
            }
            if (node.get().isPrimary() && o.position().isPresent()) {
                lag.primaryAt(now, o.position().get());
                primarySeenAt = now;
            }
            // While the primary is down nothing new is written: a replica misses only what it had
            // not received when the primary was last seen, and that gap stops growing. Measured
            // against the wall clock it would grow until every replica crossed the threshold and
            // reads went to the dead primary.
            boolean primaryDown = topology.current().primary().map(p -> !p.state().reachable()).orElse(false);
            long lagClock = primaryDown ? Math.min(now, primarySeenAt) : now;
            long gtidLag = o.position().map(p -> lag.lagSeconds(p, lagClock)).orElse(0L);
            boolean measured = o.position().map(lag::measures).orElse(false);
            NodeState state = StateInterpreter.interpret(o, !node.get().isPrimary(), gtidLag, measured);
            report(probe.nodeName(), describe(state, o));
            apply(probe.nodeName(), state);
            seen(probe.nodeName());
            checks.answered(probe.nodeName());
        }

        @Override
        public void missed(NodeProbe probe, String reason, int inRow, int downAfter) {
            LOG.info("node '{}' missed a check ({} of {} in a row before it is down): {}", probe.nodeName(), inRow,
                    downAfter, reason);
            checks.missed(probe.nodeName());
        }

        @Override
        public void stalled(NodeProbe probe, long lateMillis, long moreMillis) {
            LOG.warn("the check of node '{}' timed out {} ms late: Sluice itself was held up (GC pause or CPU "
                    + "starvation), so it waits {} ms more before counting a miss", probe.nodeName(), lateMillis,
                    moreMillis);
        }

        @Override
        public void unreachable(NodeProbe probe, String reason) {
            report(probe.nodeName(), "unreachable: " + reason);
            Optional<Node> node = topology.current().node(probe.nodeName());
            node.ifPresent(n -> apply(n.name(), n.state().withReachable(false)));
            seen(probe.nodeName());
            checks.missed(probe.nodeName());
        }
    };

    private void apply(String nodeName, NodeState state) {
        Topology after = topology.update(t -> {
            if (t.node(nodeName).isEmpty() || t.node(nodeName).get().state().equals(state)) {
                return t;
            }
            Topology next = t.withState(nodeName, state);
            Optional<Node> promoted = RoleFollower.newPrimary(next);
            return promoted.map(p -> RoleFollower.promote(next, p)).orElse(next);
        });
        Optional<Node> primary = after.primary();
        primary.ifPresent(p -> report("#primary", "primary is '" + p.name() + "'"));
    }

    private static String describe(NodeState s, NodeObservation o) {
        if (s.replicationBroken() && o.replicating()) {
            return "replication broken" + (o.replicationError().isEmpty() ? "" : ": " + o.replicationError());
        }
        return "up";
    }

    /** Logs a node's condition when it changes, not at every check. */
    private synchronized void report(String key, String condition) {
        String before = lastProblem.put(key, condition);
        if (!condition.equals(before)) {
            if (key.startsWith("#")) {
                if (before != null) {
                    LOG.warn("{} (it was {}): writes follow the writable node", condition, before);
                }
            } else if (condition.equals("up")) {
                LOG.info("node '{}' is up", key);
            } else {
                LOG.warn("node '{}': {}", key, condition);
            }
        }
    }

    @Override
    public synchronized void close() {
        if (ticker != null) {
            ticker.cancel(false);
        }
        for (NodeProbe p : probes.values()) {
            p.close();
        }
        probes.clear();
    }
}
