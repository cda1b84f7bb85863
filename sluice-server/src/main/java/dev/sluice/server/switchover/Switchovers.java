package dev.sluice.server.switchover;

import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.EventLoopGroup;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Runs switchovers one at a time, each on a thread of its own (it blocks on the nodes, step after
 * step; no event loop may wait for it). A request while one runs is refused.
 */
public final class Switchovers {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Switchovers.class);
    private final ProxyRuntime runtime;
    private final EventLoopGroup loops;
    private final Supplier<LoginRequest> login;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile SwitchoverStatus status = SwitchoverStatus.NONE;
    private final java.util.function.Consumer<String> outcomes;
    private volatile java.util.function.BooleanSupplier failoverRunning = () -> false;

    /** {@code login} is Sluice's own account (the monitor's), which runs the administrative statements. */
    public Switchovers(ProxyRuntime runtime, EventLoopGroup loops, Supplier<LoginRequest> login) {
        this.runtime = runtime;
        this.outcomes = outcome -> runtime.metrics().switchover(outcome);
        this.loops = loops;
        this.login = login;
    }

    /** Starts a switchover to {@code to}, or to the most advanced healthy replica. */
    public CompletableFuture<SwitchoverOutcome> start(Optional<String> to) {
        if (failoverRunning.getAsBoolean()) {
            String busy = "switchover refused: a failover is in progress; wait for its outcome";
            LOG.warn(busy);
            outcomes.accept("refused");
            return CompletableFuture.failedFuture(SwitchoverException.refused(busy));
        }
        if (!running.compareAndSet(false, true)) {
            String busy = "switchover refused: one is in progress already; wait for its outcome";
            LOG.warn(busy);
            return CompletableFuture.failedFuture(SwitchoverException.refused(busy));
        }
        CompletableFuture<SwitchoverOutcome> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            Progress progress = new Progress();
            try {
                SwitchoverOutcome done = new Switchover(runtime, loops.next(), login.get(), progress).run(to);
                status = new SwitchoverStatus("done", done.from(), done.to(), progress.step, done.warnings().isEmpty()
                        ? null : String.join("; ", done.warnings()), done.heldMillis(), System.currentTimeMillis());
                outcomes.accept("done");
                outcome.complete(done);
            } catch (RuntimeException e) {
                String state = e instanceof SwitchoverException s && s.conflict() ? "refused" : "called-off";
                if (state.equals("refused")) {
                    LOG.warn(e.getMessage());
                } else if (!(e instanceof SwitchoverException)) {
                    LOG.error("switchover failed inside Sluice", e);
                }
                status = new SwitchoverStatus(state, progress.from, progress.to, progress.step, e.getMessage(),
                        progress.heldSince == 0 ? null : (System.nanoTime() - progress.heldSince) / 1_000_000,
                        System.currentTimeMillis());
                outcomes.accept(state);
                outcome.completeExceptionally(e);
            } finally {
                running.set(false);
            }
        }, "sluice-switchover");
        t.setDaemon(true);
        t.start();
        return outcome;
    }

    /** A switchover is refused while {@code failover} says one runs. */
    void busyWhile(java.util.function.BooleanSupplier failover) {
        this.failoverRunning = failover;
    }

    /** The switchover in progress, or the last one. */
    public SwitchoverStatus status() {
        return status;
    }

    /** What the running switchover reports as it goes; read by {@link #status()}. */
    final class Progress {
        private volatile String from;
        private volatile String to;
        private volatile String step;
        private volatile long heldSince;

        void chosen(String fromNode, String toNode) {
            from = fromNode;
            to = toNode;
            status = new SwitchoverStatus("in-progress", from, to, "choose", null, null, System.currentTimeMillis());
        }

        void holding() {
            heldSince = System.nanoTime();
        }

        void stepDone(String name) {
            step = name;
            if (from != null) {
                status = new SwitchoverStatus("in-progress", from, to, name, null, null, status.atMillis());
            }
        }
    }
}
