package dev.sluice.server.switchover;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.config.MonitorConfig;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs failovers one at a time, each on a thread of its own, started by the admin API or, with
 * {@code failover: auto}, by the monitor's missed checks ({@link FailoverTrigger}); and, once one is
 * done, watches for the old primary to answer again ({@link FormerPrimary}). A failover is refused
 * while a switchover runs, and the other way round.
 */
public final class Failovers {
    private static final Logger LOG = LoggerFactory.getLogger(Failovers.class);
    /** A former primary that could not be handled is tried again at most this often. */
    private static final long REJOIN_RETRY_NANOS = 5_000_000_000L;

    private final ProxyRuntime runtime;
    private final EventLoopGroup loops;
    private final Supplier<LoginRequest> login;
    private final Switchovers switchovers;
    private final FailoverTrigger trigger;
    /** Whether this instance decides automatic failovers: always alone, only as the leader in cluster mode. */
    private final BooleanSupplier leading;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean rejoining = new AtomicBoolean();
    private volatile FailoverStatus status = FailoverStatus.NONE;
    /** The last failover done: its old primary, watched until it is back and judged; null before any. */
    private volatile Watch watch;

    /**
     * What became of the old primary of the last failover done, kept apart from the last attempt's
     * status: a later refused attempt must not make Sluice forget to judge it.
     */
    private record Watch(String from, String to, GtidPosition promotedAt, String state, Long unshipped,
            String message) {
        Watch judged(FormerPrimary.Verdict v) {
            return new Watch(from, to, promotedAt, v.state(), v.unshipped(), v.message());
        }
    }
    private volatile long lastRejoinAttempt;

    public Failovers(ProxyRuntime runtime, EventLoopGroup loops, Supplier<LoginRequest> login,
            Switchovers switchovers, BooleanSupplier leading) {
        this.runtime = runtime;
        this.leading = leading;
        this.loops = loops;
        this.login = login;
        this.switchovers = switchovers;
        MonitorConfig m = runtime.config().monitor();
        this.trigger = new FailoverTrigger(m.autoFailover(), m.failoverAfter(), m.downAfter());
        switchovers.busyWhile(running::get);
        runtime.topologyHolder().addListener(this::formerPrimaryBack);
    }

    /** A check of {@code node} was answered (the monitor reports every one). */
    public void answered(String node) {
        trigger.answered(node);
    }

    /** A check of {@code node} was missed, after the monitor applied what it makes of it. */
    public void missed(String node) {
        boolean primary = runtime.topology().node(node).map(Node::isPrimary).orElse(false);
        FailoverTrigger.Decision d = trigger.missed(node, primary, leading.getAsBoolean());
        if (d == FailoverTrigger.Decision.FAIL_OVER) {
            LOG.warn("the primary '{}' missed {} checks in a row: failing over (failover: auto)", node,
                    trigger.threshold());
            start(Optional.empty(), "auto");
        } else if (d == FailoverTrigger.Decision.LEFT_TO_LEADER) {
            LOG.warn("the primary '{}' missed {} checks in a row; this instance is not the cluster's leader: the "
                    + "leader fails over, and this instance follows the new primary once it is writable", node,
                    trigger.threshold());
        }
    }

    /** Starts a failover to {@code to}, or to the most advanced reachable replica. */
    public CompletableFuture<SwitchoverOutcome> start(Optional<String> to, String by) {
        if (switchovers.status().inProgress()) {
            return refusedNow(by, "failover refused: a switchover is in progress; wait for its outcome");
        }
        if (!running.compareAndSet(false, true)) {
            return refusedNow(by, "failover refused: one is in progress already; wait for its outcome");
        }
        CompletableFuture<SwitchoverOutcome> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            Progress progress = new Progress(by);
            try {
                Failover.Done done = new Failover(runtime, loops.next(), login.get(), progress).run(to);
                SwitchoverOutcome o = done.outcome();
                lastRejoinAttempt = 0;
                watch = new Watch(o.from(), o.to(), done.promotedAt(), "down", null, "'" + o.from() + "' takes no "
                        + "traffic; when it is back Sluice makes it read-only and rejoins it as a replica if its "
                        + "position is contained in " + done.promotedAt());
                status = new FailoverStatus("done", by, o.from(), o.to(), progress.step, o.steps(),
                        o.warnings().isEmpty() ? null : String.join("; ", o.warnings()), o.heldMillis(),
                        System.currentTimeMillis(), done.promotedAt().toString(), null, null, null, null);
                runtime.metrics().failover("done");
                outcome.complete(o);
            } catch (RuntimeException e) {
                String state = e instanceof SwitchoverException s && s.conflict() ? "refused" : "called-off";
                if (!(e instanceof SwitchoverException)) {
                    LOG.error("failover failed inside Sluice", e);
                } else if (state.equals("refused")) {
                    LOG.warn(e.getMessage());
                }
                status = new FailoverStatus(state, by, progress.from, progress.to, progress.step, List.of(),
                        e.getMessage(), progress.heldSince == 0 ? null : (System.nanoTime() - progress.heldSince)
                        / 1_000_000, System.currentTimeMillis(), null, null, null, null, null);
                runtime.metrics().failover(state);
                outcome.completeExceptionally(e);
            } finally {
                running.set(false);
            }
            formerPrimaryBack(runtime.topology());
        }, "sluice-failover");
        t.setDaemon(true);
        t.start();
        return outcome;
    }

    private CompletableFuture<SwitchoverOutcome> refusedNow(String by, String why) {
        LOG.warn(why);
        runtime.metrics().failover("refused");
        if (!status.inProgress()) {
            // The one in progress stays what DescribeDBProxy shows; this refusal is in the log.
            status = new FailoverStatus("refused", by, null, null, null, List.of(), why, null,
                    System.currentTimeMillis(), null, null, null, null, null);
        }
        return CompletableFuture.failedFuture(SwitchoverException.refused(why));
    }

    /** The failover in progress, or the last one, with what became of the last done one's old primary. */
    public FailoverStatus status() {
        Watch w = watch;
        FailoverStatus s = status;
        return w == null ? s : s.withFormerPrimary(w.from(), w.state(), w.unshipped(), w.message());
    }

    /**
     * The old primary of the last failover: {@code held} out of traffic until it rejoins (down,
     * diverged, not replicating), or rejoined; {@code promotedAt} the position it must be contained in.
     */
    public record LeftBehind(String node, String promotedAt, boolean held) {
    }

    /** The last failover's old primary and whether it is still held out; empty before any failover known here. */
    public Optional<LeftBehind> leftBehind() {
        Watch w = watch;
        return w == null ? Optional.empty() : Optional.of(new LeftBehind(w.from(), w.promotedAt().toString(),
                !"rejoined".equals(w.state())));
    }

    /**
     * In cluster mode, the old primary the shared configuration holds out ({@code now}; {@code before}
     * at the revision run before). One this instance did not fail over itself is taken on, so that it
     * judges the node when it is back if it leads then; one that left the shared configuration was
     * rejoined by the instance that led when it came back.
     */
    public void formerPrimaryShared(Optional<SharedConfig.FormerPrimary> now,
            Optional<SharedConfig.FormerPrimary> before, String primary) {
        Watch w = watch;
        if (now.isPresent()) {
            String node = now.get().node();
            String promotedAt = now.get().promotedAt();
            boolean known = w != null && w.from().equals(node) && w.promotedAt().toString().equals(promotedAt);
            Optional<GtidPosition> at = GtidPosition.parse(promotedAt);
            if (!known && at.isPresent()) {
                watch = new Watch(node, primary, at.get(), "down", null, "'" + node + "' takes no "
                        + "traffic since a failover; when it is back the instance that leads then makes it "
                        + "read-only and rejoins it as a replica if its position is contained in " + promotedAt);
                lastRejoinAttempt = 0;
            }
        } else if (before.isPresent() && w != null && w.from().equals(before.get().node())
                && !"rejoined".equals(w.state())) {
            watch = new Watch(w.from(), w.to(), w.promotedAt(), "rejoined", null, "'" + w.from() + "' rejoined: "
                    + "another instance of the cluster judged it when it was back");
        }
    }

    /** The last failover's old primary, when it is diverged (DescribeDBProxy shows the node so). */
    public Optional<String> diverged() {
        Watch w = watch;
        return w != null && "diverged".equals(w.state()) ? Optional.of(w.from()) : Optional.empty();
    }

    /** Looks at once whether the last failover's old primary answers again (an instance that just became leader). */
    public void lookForFormerPrimary() {
        formerPrimaryBack(runtime.topology());
    }

    /** On every topology change: the last failover's old primary answers again; handled once, on a thread of its own. */
    private void formerPrimaryBack(Topology t) {
        Watch w = watch;
        if (w == null || running.get() || !"down".equals(w.state()) || !leading.getAsBoolean()) {
            return;
        }
        Optional<Node> old = t.node(w.from());
        Optional<Node> primary = t.node(w.to());
        if (old.isEmpty() || primary.isEmpty() || !old.get().state().reachable() || !primary.get().isPrimary()
                || System.nanoTime() - lastRejoinAttempt < REJOIN_RETRY_NANOS || !rejoining.compareAndSet(false, true)) {
            return;
        }
        lastRejoinAttempt = System.nanoTime();
        Thread thread = new Thread(() -> {
            try {
                FormerPrimary.Verdict v = FormerPrimary.rejoin(runtime, loops.next(), login.get(),
                        runtime.config().replication().orElseThrow(), runtime.ref(old.get()),
                        runtime.ref(primary.get()), w.promotedAt());
                if (watch == w) {
                    watch = w.judged(v);
                    if (v.unshipped() > 0) {
                        runtime.metrics().unshippedCommits(v.unshipped());
                    }
                }
            } catch (RuntimeException e) {
                LOG.warn("the former primary '{}' answers again but could not be fenced and judged yet: {}",
                        w.from(), e.getMessage());
            } finally {
                rejoining.set(false);
            }
        }, "sluice-former-primary");
        thread.setDaemon(true);
        thread.start();
    }

    /** What the running failover reports as it goes; read by {@link #status()}. */
    final class Progress {
        private final String by;
        private volatile String from;
        private volatile String to;
        private volatile String step;
        private volatile long heldSince;

        Progress(String by) {
            this.by = by;
            status = new FailoverStatus("in-progress", by, null, null, "start", List.of(), null, null,
                    System.currentTimeMillis(), null, null, null, null, null);
        }

        void from(String node) {
            from = node;
            publish();
        }

        void to(String node) {
            to = node;
            publish();
        }

        void holding() {
            heldSince = System.nanoTime();
        }

        void stepDone(String name) {
            step = name;
            publish();
        }

        private void publish() {
            status = new FailoverStatus("in-progress", by, from, to, step, List.of(), null, null, status.atMillis(),
                    null, null, null, null, null);
        }
    }
}
