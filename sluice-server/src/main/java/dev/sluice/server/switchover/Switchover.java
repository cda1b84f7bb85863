package dev.sluice.server.switchover;

import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.config.ReplicationAccount;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.PrimaryHold;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One planned switchover (BEHAVIOUR §10), step by step:
 * <ol>
 * <li>choose the target ({@link TargetChoice}); refuse, changing nothing, when there is none;</li>
 * <li>take the {@link MoveLock} on the old primary and the target: no other switchover or failover,
 *     whichever instance runs it, changes them meanwhile;</li>
 * <li>hold new work for the primary ({@link PrimaryHold}) and wait for the sessions to let it go
 *     ({@link SessionDrain}), at most {@code switchover-timeout}; past it, release and call off;</li>
 * <li>fence the old primary ({@link Fence}) and read its last GTID position;</li>
 * <li>wait for the target to apply it, within what is left of the timeout; else lift the fence,
 *     release and call off;</li>
 * <li>promote the target and point every other node at it ({@link Repointing});</li>
 * <li>once the monitor has seen the target writable ({@link MonitorAgreement}), switch Sluice's
 *     topology ({@link Roles}) and release the held commands to the new primary;</li>
 * <li>check that every node pointed replicates (after the release: nothing is undone by then,
 *     so the held writes need not wait for it).</li>
 * </ol>
 * Runs on a thread of its own, blocking on one node at a time.
 */
final class Switchover {
    private static final Logger LOG = LoggerFactory.getLogger(Switchover.class);
    /** Each administrative statement's own bound (the waits have theirs). */
    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    private final ProxyRuntime runtime;
    private final EventLoop loop;
    private final LoginRequest login;
    private final Switchovers.Progress progress;

    Switchover(ProxyRuntime runtime, EventLoop loop, LoginRequest login, Switchovers.Progress progress) {
        this.runtime = runtime;
        this.loop = loop;
        this.login = login;
        this.progress = progress;
    }

    SwitchoverOutcome run(Optional<String> requested) {
        Timeline timeline = new Timeline(progress::stepDone);
        ReplicationAccount account = runtime.config().replication().orElseThrow(() -> SwitchoverException.refused(
                "no replication account is configured: add replication: {user, password} (an account with "
                        + "REPLICATION SLAVE on every node) to the configuration"));
        Duration timeout = runtime.config().monitor().switchoverTimeout();
        TargetChoice.Choice choice = TargetChoice.choose(runtime.topology(), requested, timeout);
        if (choice instanceof TargetChoice.Refused r) {
            throw SwitchoverException.refused("switchover refused: " + r.reason());
        }
        Node primary = ((TargetChoice.Chosen) choice).primary();
        Node target = ((TargetChoice.Chosen) choice).target();
        NodeRef from = runtime.ref(primary);
        NodeRef to = runtime.ref(target);
        progress.chosen(from.name(), to.name());
        String leg = "switchover from '" + from.name() + "' to '" + to.name() + "'";
        try (NodeAdmin old = connect(from, leg); NodeAdmin next = connect(to, leg);
                Repointing others = new Repointing(runtime, loop, login, account, STATEMENT_TIMEOUT)) {
            MoveLock.take(old, leg, STATEMENT_TIMEOUT);
            MoveLock.take(next, leg, STATEMENT_TIMEOUT);
            List<String> unreachable = others.connect(to, primary);
            timeline.step("connect");
            return hand(leg, old, next, others, unreachable, primary, target, account, timeout, timeline);
        }
    }

    private NodeAdmin connect(NodeRef node, String leg) {
        try {
            return NodeAdmin.open(runtime.connector(), loop, node, login, STATEMENT_TIMEOUT);
        } catch (SwitchoverException e) {
            throw SwitchoverException.refused(leg + " refused: " + e.getMessage());
        }
    }

    private SwitchoverOutcome hand(String leg, NodeAdmin old, NodeAdmin next, Repointing repointing,
            List<String> unreachable, Node primary, Node target, ReplicationAccount account, Duration timeout,
            Timeline timeline) {
        PrimaryHold hold = runtime.primaryHold();
        SessionDrain sessions = new SessionDrain(runtime);
        hold.hold();
        progress.holding();
        long heldAt = System.nanoTime();
        LOG.info("{}: holding new transactions and writes (at most {} ms)", leg, timeout.toMillis());
        try {
            try {
                sessions.await(primary.id(), heldAt, timeout);
            } catch (SwitchoverException e) {
                throw calledOff(leg, primary, e.getMessage());
            }
            timeline.step("drain");
            sessions.leave(primary.id());
            String last = fenceOrCallOff(leg, old, primary);
            timeline.step("fence");
            catchUpOrCallOff(leg, old, next, primary, last, remaining(heldAt, timeout));
            timeline.step("catch-up");
            promoteOrCallOff(leg, old, next, primary, account);
            runtime.checkNow(target.id());
            timeline.step("promote");
            // The target takes writes now: from here on nothing is undone, whatever fails; the
            // topology must follow it, or the released writes would go to the old primary.
            List<String> warnings = new ArrayList<>(unreachable);
            try {
                old.query("UNLOCK TABLES", STATEMENT_TIMEOUT);
                warnings.addAll(repointing.pointAt(runtime.ref(target), primary));
            } catch (RuntimeException e) {
                warnings.add("pointing the other nodes at '" + target.name() + "' failed: " + e.getMessage());
            }
            timeline.step("repoint");
            MonitorAgreement.awaitSeenWritable(runtime, target.id());
            timeline.step("seen-writable");
            Roles.swap(runtime, primary.name(), target.name());
            sessions.leave(primary.id());
            hold.release();
            long heldMillis = Duration.ofNanos(System.nanoTime() - heldAt).toMillis();
            timeline.step("release");
            warnings.addAll(repointing.checkRunning(runtime.ref(target)));
            timeline.step("replication-check");
            LOG.info("{}: done; writes were held {} ms; steps {}{}", leg, heldMillis, timeline.steps().stream()
                    .map(st -> st.name() + " " + st.millis() + " ms").collect(java.util.stream.Collectors.joining(", ")),
                    warnings.isEmpty() ? "" : "; warnings: " + String.join("; ", warnings));
            return new SwitchoverOutcome(primary.name(), target.name(), timeline.steps(), heldMillis, warnings);
        } finally {
            hold.release();
        }
    }

    private String fenceOrCallOff(String leg, NodeAdmin old, Node primary) {
        try {
            return Fence.raise(old, login.user(), STATEMENT_TIMEOUT);
        } catch (RuntimeException e) {
            lowerFence(old, primary);
            throw calledOff(leg, primary, "the old primary could not be made read-only: " + e.getMessage());
        }
    }

    private void catchUpOrCallOff(String leg, NodeAdmin old, NodeAdmin next, Node primary, String last,
            Duration left) {
        long seconds = Math.max(1, (left.toMillis() + 999) / 1000);
        String answer;
        try {
            answer = next.query(ReplicationStatements.gtidWait(last, seconds), Duration.ofSeconds(seconds)
                    .plus(STATEMENT_TIMEOUT)).rows().get(0).get(0);
        } catch (SwitchoverException e) {
            lowerFence(old, primary);
            throw calledOff(leg, primary, "waiting for '" + next.node().name() + "' to apply " + last + " failed: "
                    + e.getMessage());
        }
        if (!"0".equals(answer)) {
            lowerFence(old, primary);
            throw calledOff(leg, primary, "'" + next.node().name() + "' did not apply the primary's last "
                    + "transaction (" + last + ") within " + seconds + " s");
        }
    }

    /** Promotes the target; on a failure puts it back as a replica of the old primary, which takes writes again. */
    private void promoteOrCallOff(String leg, NodeAdmin old, NodeAdmin next, Node primary,
            ReplicationAccount account) {
        try {
            next.query(ReplicationStatements.STOP, STATEMENT_TIMEOUT);
            next.query(ReplicationStatements.FORGET_SOURCE, STATEMENT_TIMEOUT);
            next.query(ReplicationStatements.WRITABLE, STATEMENT_TIMEOUT);
        } catch (SwitchoverException e) {
            try {
                next.query(ReplicationStatements.READ_ONLY, STATEMENT_TIMEOUT);
                next.query(ReplicationStatements.changeMaster(runtime.ref(primary).address(), account),
                        STATEMENT_TIMEOUT);
                next.query(ReplicationStatements.START, STATEMENT_TIMEOUT);
            } catch (SwitchoverException again) {
                LOG.error("{}: '{}' could not be put back as a replica of '{}': {}", leg, next.node().name(),
                        primary.name(), again.getMessage());
            }
            lowerFence(old, primary);
            throw calledOff(leg, primary, "promoting '" + next.node().name() + "' failed: " + e.getMessage());
        }
    }

    private void lowerFence(NodeAdmin old, Node primary) {
        try {
            Fence.lower(old, STATEMENT_TIMEOUT);
            MonitorAgreement.awaitSettledWritable(runtime, primary.id());
            Roles.writable(runtime, primary.name());
        } catch (SwitchoverException e) {
            LOG.error("switchover: the old primary '{}' could not be made writable again: {}; it stays read-only",
                    primary.name(), e.getMessage());
        }
    }

    private static SwitchoverException calledOff(String leg, Node primary, String why) {
        String message = leg + " called off: " + why + ". '" + primary.name() + "' stays the primary and takes "
                + "the held statements";
        LOG.warn(message);
        return new SwitchoverException(message);
    }

    private static Duration remaining(long heldAt, Duration timeout) {
        Duration left = timeout.minus(Duration.ofNanos(System.nanoTime() - heldAt));
        return left.isNegative() ? Duration.ZERO : left;
    }
}
