package dev.sluice.server.switchover;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.topology.Node;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.config.ReplicationAccount;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.PrimaryHold;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One failover (BEHAVIOUR §10): the primary is gone, a replica takes its place.
 * <ol>
 * <li>the monitor must see the primary unreachable and it must refuse a connection of Sluice's own
 *     ({@link FailoverChoice#eligible}): a live primary is switched over, never failed over;</li>
 * <li>hold new work for the primary ({@link PrimaryHold}): it waits for the new one;</li>
 * <li>take the {@link MoveLock} on every candidate, so that no other failover or switchover changes
 *     them meanwhile, whichever instance runs it;</li>
 * <li>ask every candidate what it received from the dead primary and choose the most advanced
 *     ({@link FailoverChoice#choose}); refuse, changing nothing, when none can be chosen;</li>
 * <li>wait for the target to apply all it received, within {@code switchover-timeout}; else call
 *     off, changing nothing;</li>
 * <li>promote the target, note its position (the old primary rejoins only if it is contained in it,
 *     {@link FormerPrimary}), point the other replicas at it ({@link Repointing});</li>
 * <li>once the monitor has seen it writable, switch Sluice's topology ({@link Roles#failedOver}: the
 *     old primary stays out of traffic) and release the held commands;</li>
 * <li>check that every replica pointed replicates.</li>
 * </ol>
 * Runs on a thread of its own, blocking on one node at a time.
 */
final class Failover {
    private static final Logger LOG = LoggerFactory.getLogger(Failover.class);
    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    private final ProxyRuntime runtime;
    private final EventLoop loop;
    private final LoginRequest login;
    private final Failovers.Progress progress;

    Failover(ProxyRuntime runtime, EventLoop loop, LoginRequest login, Failovers.Progress progress) {
        this.runtime = runtime;
        this.loop = loop;
        this.login = login;
        this.progress = progress;
    }

    /** The outcome, and the new primary's position at its promotion. */
    record Done(SwitchoverOutcome outcome, GtidPosition promotedAt) {
    }

    Done run(Optional<String> requested) {
        Timeline timeline = new Timeline(progress::stepDone);
        ReplicationAccount account = runtime.config().replication().orElseThrow(() -> SwitchoverException.refused(
                "failover refused: no replication account is configured: add replication: {user, password} (an "
                        + "account with REPLICATION SLAVE on every node) to the configuration"));
        FailoverChoice.Eligibility eligibility = FailoverChoice.eligible(runtime.topology(), requested);
        if (eligibility instanceof FailoverChoice.NotEligible no) {
            throw SwitchoverException.refused("failover refused: " + no.reason());
        }
        FailoverChoice.Eligible eligible = (FailoverChoice.Eligible) eligibility;
        Node primary = eligible.primary();
        confirmGone(primary);
        progress.from(primary.name());
        timeline.step("confirm-gone");
        PrimaryHold hold = runtime.primaryHold();
        hold.hold();
        progress.holding();
        long heldAt = System.nanoTime();
        try {
            new SessionDrain(runtime).abandon(primary.id());
            return hand(primary, eligible, requested, account, hold, heldAt, timeline);
        } finally {
            hold.release();
        }
    }

    /** The warning for a candidate left out: it could not be reached, or could not answer. */
    private static String notAsked(Node n, SwitchoverException e) {
        return "'" + n.name() + "' could not be asked what it received: " + e.getMessage();
    }

    private Done hand(Node primary, FailoverChoice.Eligible eligible, Optional<String> requested,
            ReplicationAccount account, PrimaryHold hold, long heldAt, Timeline timeline) {
        List<String> warnings = new ArrayList<>();
        List<NodeAdmin> asked = new ArrayList<>();
        try {
            List<FailoverChoice.Candidate> candidates = new ArrayList<>();
            for (Node n : eligible.candidates()) {
                NodeAdmin admin;
                try {
                    admin = NodeAdmin.open(runtime.connector(), loop, runtime.ref(n), login, STATEMENT_TIMEOUT);
                } catch (SwitchoverException e) {
                    warnings.add(notAsked(n, e));
                    continue;
                }
                asked.add(admin);
                // Every candidate may be changed (promoted or pointed at the new primary).
                MoveLock.take(admin, "failover", STATEMENT_TIMEOUT);
                try {
                    candidates.add(new FailoverChoice.Candidate(n.name(), received(admin)));
                } catch (SwitchoverException e) {
                    warnings.add(notAsked(n, e));
                }
            }
            timeline.step("ask");
            FailoverChoice.Choice choice = FailoverChoice.choose(candidates, requested);
            if (choice instanceof FailoverChoice.Refused r) {
                throw SwitchoverException.refused("failover refused: " + r.reason()
                        + (warnings.isEmpty() ? "" : "; " + String.join("; ", warnings)));
            }
            FailoverChoice.Candidate target = ((FailoverChoice.Chosen) choice).target();
            NodeAdmin next = asked.stream().filter(a -> a.node().name().equals(target.name())).findFirst()
                    .orElseThrow();
            Node targetNode = runtime.topology().node(target.name()).orElseThrow();
            NodeRef to = runtime.ref(targetNode);
            progress.to(to.name());
            String leg = "failover from '" + primary.name() + "' to '" + to.name() + "'";
            LOG.warn("{}: holding new transactions and writes; '{}' received {}", leg, to.name(), target.received());
            try (Repointing others = new Repointing(runtime, loop, login, account, STATEMENT_TIMEOUT)) {
                warnings.addAll(others.connectReplicas(to, primary));
                catchUp(leg, next, target.received());
                timeline.step("catch-up");
                GtidPosition promotedAt = promote(leg, next);
                runtime.checkNow(targetNode.id());
                timeline.step("promote");
                // The target takes writes now: nothing is undone from here on, whatever fails.
                try {
                    warnings.addAll(others.pointAt(to, primary));
                } catch (RuntimeException e) {
                    warnings.add("pointing the replicas at '" + to.name() + "' failed: " + e.getMessage());
                }
                timeline.step("repoint");
                MonitorAgreement.awaitSeenWritable(runtime, targetNode.id());
                timeline.step("seen-writable");
                Roles.failedOver(runtime, primary.name(), to.name());
                new SessionDrain(runtime).leave(primary.id());
                hold.release();
                long heldMillis = Duration.ofNanos(System.nanoTime() - heldAt).toMillis();
                timeline.step("release");
                warnings.addAll(others.checkRunning(to));
                timeline.step("replication-check");
                LOG.warn("{}: done; writes were held {} ms; '{}' takes no traffic until it is back and contained in "
                        + "{}; steps {}{}", leg, heldMillis, primary.name(), promotedAt, timeline.steps().stream()
                        .map(st -> st.name() + " " + st.millis() + " ms").collect(Collectors.joining(", ")),
                        warnings.isEmpty() ? "" : "; warnings: " + String.join("; ", warnings));
                return new Done(new SwitchoverOutcome(primary.name(), to.name(), timeline.steps(), heldMillis,
                        warnings), promotedAt);
            }
        } finally {
            asked.forEach(NodeAdmin::close);
        }
    }

    /** A connection of Sluice's own must fail too: the monitor may be behind a primary that came back. */
    private void confirmGone(Node primary) {
        NodeRef ref = runtime.ref(primary);
        Duration bound = runtime.config().monitor().connectTimeout().plus(runtime.config().monitor().queryTimeout());
        NodeAdmin alive;
        try {
            alive = NodeAdmin.open(runtime.connector(), loop, ref, login, bound);
        } catch (SwitchoverException gone) {
            return;
        }
        alive.close();
        throw SwitchoverException.refused("failover refused: the primary '" + primary.name() + "' answers again: "
                + "use switchover (./sluice switchover, POST /v1/switchover) to move a live primary");
    }

    /**
     * What {@code node} received from the dead primary: its I/O thread's position, merged with what it
     * applied (a replica that never received anything since it was pointed has no I/O position).
     */
    private static GtidPosition received(NodeAdmin node) {
        QueryResult status = node.query(ReplicationStatements.STATUS, STATEMENT_TIMEOUT);
        String current = node.query("SELECT @@gtid_current_pos", STATEMENT_TIMEOUT).rows().get(0).get(0);
        GtidPosition applied = parse(node, current == null ? "" : current);
        return status.first("Gtid_IO_Pos").filter(s -> !s.isBlank()).map(io -> applied.merge(parse(node, io)))
                .orElse(applied);
    }

    private static GtidPosition parse(NodeAdmin node, String text) {
        return GtidPosition.parse(text).orElseThrow(() -> new SwitchoverException("'" + node.node().name()
                + "' reported a GTID position Sluice cannot read: " + text));
    }

    private void catchUp(String leg, NodeAdmin next, GtidPosition received) {
        Duration bound = runtime.config().monitor().switchoverTimeout();
        long seconds = Math.max(1, bound.toSeconds());
        String answer;
        try {
            answer = next.query(ReplicationStatements.gtidWait(received.toString(), seconds),
                    Duration.ofSeconds(seconds).plus(STATEMENT_TIMEOUT)).rows().get(0).get(0);
        } catch (SwitchoverException e) {
            throw calledOff(leg, "waiting for '" + next.node().name() + "' to apply what it received failed: "
                    + e.getMessage());
        }
        if (!"0".equals(answer)) {
            throw calledOff(leg, "'" + next.node().name() + "' did not apply what it had received (" + received
                    + ") within " + seconds + " s; nothing was changed");
        }
    }

    private GtidPosition promote(String leg, NodeAdmin next) {
        try {
            next.query(ReplicationStatements.STOP, STATEMENT_TIMEOUT);
            next.query(ReplicationStatements.FORGET_SOURCE, STATEMENT_TIMEOUT);
            next.query(ReplicationStatements.WRITABLE, STATEMENT_TIMEOUT);
        } catch (SwitchoverException e) {
            throw calledOff(leg, "promoting '" + next.node().name() + "' failed: " + e.getMessage()
                    + "; the cluster has no writable primary: promote a replica by hand or try again");
        }
        String at = next.query("SELECT @@gtid_current_pos", STATEMENT_TIMEOUT).rows().get(0).get(0);
        return parse(next, at == null ? "" : at);
    }

    private static SwitchoverException calledOff(String leg, String why) {
        String message = leg + " called off: " + why + ". Writes are released and fail while there is no primary";
        LOG.error(message);
        return new SwitchoverException(message);
    }
}
