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
    private final ProxyRuntime runtime;
    private final EventLoopGroup loops;
    private final Supplier<LoginRequest> login;
    private final AtomicBoolean running = new AtomicBoolean();

    /** {@code login} is Sluice's own account (the monitor's), which runs the administrative statements. */
    public Switchovers(ProxyRuntime runtime, EventLoopGroup loops, Supplier<LoginRequest> login) {
        this.runtime = runtime;
        this.loops = loops;
        this.login = login;
    }

    /** Starts a switchover to {@code to}, or to the most advanced healthy replica. */
    public CompletableFuture<SwitchoverOutcome> start(Optional<String> to) {
        if (!running.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(SwitchoverException.refused(
                    "a switchover is in progress already: wait for its outcome"));
        }
        CompletableFuture<SwitchoverOutcome> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                outcome.complete(new Switchover(runtime, loops.next(), login.get()).run(to));
            } catch (RuntimeException e) {
                outcome.completeExceptionally(e);
            } finally {
                running.set(false);
            }
        }, "sluice-switchover");
        t.setDaemon(true);
        t.start();
        return outcome;
    }
}
