package dev.sluice.server.switchover;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.NodeState;
import dev.sluice.routing.topology.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which replica a switchover promotes (BEHAVIOUR §10), from the monitor's last view: the one named,
 * or else the most advanced healthy replica — the fewest transactions behind the primary's GTID
 * position, then the least lag, then configuration order. A replica qualifies when it is reachable,
 * not draining, replicating, and no more than {@code maxLag} behind: it must be able to apply the
 * primary's last transaction while writes are held. Pure.
 */
public final class TargetChoice {
    private TargetChoice() {
    }

    /** The decision: a primary and the replica to promote, or why there is none. */
    public sealed interface Choice {
    }

    public record Chosen(Node primary, Node target) implements Choice {
    }

    public record Refused(String reason) implements Choice {
    }

    public static Choice choose(Topology t, Optional<String> requested, Duration maxLag) {
        Optional<Node> primary = t.primary();
        if (primary.isEmpty()) {
            return new Refused("no primary is known: there is nothing to switch over from");
        }
        Node p = primary.get();
        if (!p.state().reachable()) {
            return new Refused("the primary '" + p.name() + "' is unreachable: a switchover needs it to hand over "
                    + "its last transactions");
        }
        if (requested.isPresent()) {
            String name = requested.get();
            Optional<Node> node = t.node(name);
            if (node.isEmpty()) {
                return new Refused("no node '" + name + "'; nodes: "
                        + t.nodes().stream().map(Node::name).collect(Collectors.joining(", ")));
            }
            if (node.get().isPrimary()) {
                return new Refused("'" + name + "' is the primary already");
            }
            Optional<String> unfit = unfit(node.get(), maxLag);
            return unfit.<Choice>map(why -> new Refused("cannot switch over to '" + name + "': " + why))
                    .orElseGet(() -> new Chosen(p, node.get()));
        }
        List<Node> fit = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        for (Node n : t.nodes()) {
            if (n.isPrimary()) {
                continue;
            }
            Optional<String> unfit = unfit(n, maxLag);
            if (unfit.isPresent()) {
                reasons.add(n.name() + ": " + unfit.get());
            } else {
                fit.add(n);
            }
        }
        if (fit.isEmpty()) {
            return new Refused("no replica can take over" + (reasons.isEmpty() ? " (there is none)"
                    : ": " + String.join("; ", reasons)));
        }
        Optional<GtidPosition> at = p.state().position();
        Comparator<Node> order = Comparator.comparingLong((Node n) -> behind(n, at))
                .thenComparingLong(n -> n.state().lag().seconds());
        return new Chosen(p, fit.stream().min(order).orElseThrow());
    }

    /** Why {@code n} cannot take over, if it cannot. */
    static Optional<String> unfit(Node n, Duration maxLag) {
        NodeState s = n.state();
        if (!s.reachable()) {
            return Optional.of("it is unreachable");
        }
        if (n.draining()) {
            return Optional.of("it is being drained");
        }
        if (s.replicationBroken()) {
            return Optional.of("its replication is not running (I/O thread " + running(s.ioThreadRunning())
                    + ", SQL thread " + running(s.sqlThreadRunning()) + ")");
        }
        if (!s.lag().isKnown()) {
            return Optional.of("its replication lag is not known yet");
        }
        if (s.lag().exceeds(maxLag)) {
            return Optional.of("it lags " + s.lag().seconds() + " s behind the primary, more than the "
                    + maxLag.toSeconds() + " s the switchover may wait for it");
        }
        if (s.position().isEmpty()) {
            return Optional.of("its GTID position is not known yet");
        }
        return Optional.empty();
    }

    private static String running(boolean yes) {
        return yes ? "running" : "stopped";
    }

    /** Transactions of the primary's position that {@code n} has not applied (0 when it is unknown). */
    private static long behind(Node n, Optional<GtidPosition> primaryAt) {
        return primaryAt.map(at -> n.state().position().map(p -> p.missingCount(at)).orElse(Long.MAX_VALUE))
                .orElse(0L);
    }
}
